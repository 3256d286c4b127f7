/*
 * md_card.h - business cards for subdevices: finding the card a rank
 * published in the card table handed to connect().
 */
#ifndef MD_CARD_H
#define MD_CARD_H

#include <stddef.h>
#include <stdint.h>

#include "md_sdi.h"

/* The card of world rank r if it is len bytes long and opens with the
 * 32-bit magic (in host order); NULL if r published none or another kind. */
const void *md_card_find(const md_card_table_t *cards, int32_t r, size_t len, uint32_t magic);

#endif /* MD_CARD_H */
