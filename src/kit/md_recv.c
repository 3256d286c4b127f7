/* md_recv.c - the one allocation of an arrival's copy (md_recv.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_recv.h"

void *md_recv_msg_new(size_t msg_size, size_t mq_offset, const md_envelope_t *env,
                      size_t data_offset, const void *data, size_t len)
{
    uint8_t *m = malloc(msg_size + len);

    if (m == NULL)
        return NULL;
    memset(m, 0, msg_size);
    ((md_mq_msg_t *)(void *)(m + mq_offset))->env = *env;
    if (len)
        memcpy(m + data_offset, data, len);
    return m;
}
