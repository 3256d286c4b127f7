/* md_card.c - finding a rank's business card (see md_card.h). */
#include "config.h"

#include <string.h>

#include "md_card.h"

const void *md_card_find(const md_card_table_t *cards, int32_t r, size_t len, uint32_t magic)
{
    uint32_t m;

    if (r < 0 || r >= cards->world_size || len < sizeof(m) || cards->len[r] != len ||
        cards->card[r] == NULL)
        return NULL;
    memcpy(&m, cards->card[r], sizeof(m));
    return m == magic ? cards->card[r] : NULL;
}
