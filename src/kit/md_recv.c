/* md_recv.c - the one allocation of an arrival's copy (md_recv.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_recv.h"

void *md_recv_msg_new(const void *head, size_t head_size, size_t data_offset, const void *data,
                      size_t len)
{
    uint8_t *m = malloc(head_size + len);

    if (m == NULL)
        return NULL;
    memcpy(m, head, head_size);
    if (len)
        memcpy(m + data_offset, data, len);
    return m;
}
