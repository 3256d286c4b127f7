/* md_ipv4.c - IPv4 addresses and subnets (md_ipv4.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "md_ipv4.h"

#define ADDR_EXPECTED "an IPv4 address (four numbers 0-255 joined by dots, e.g. 10.0.0.1)"

/* One number 0-255 without a leading zero, starting at text[*at]. */
static int parse_octet(const char *text, size_t len, size_t *at, uint32_t *octet)
{
    size_t i = *at, digits = 0;
    uint32_t v = 0;

    while (i < len && text[i] >= '0' && text[i] <= '9' && digits < 4) {
        v = v * 10 + (uint32_t)(text[i] - '0');
        i++;
        digits++;
    }
    if (digits == 0 || v > 255 || (digits > 1 && text[*at] == '0'))
        return -1;
    *at = i;
    *octet = v;
    return 0;
}

int md_ipv4_parse(const char *text, size_t len, uint32_t *addr, char *why,
                  size_t why_len)
{
    uint32_t host = 0, octet;
    size_t at = 0;

    for (int k = 0; k < 4; k++) {
        if ((k > 0 && (at >= len || text[at++] != '.')) ||
            parse_octet(text, len, &at, &octet) != 0) {
            snprintf(why, why_len, "expected %s", ADDR_EXPECTED);
            return -1;
        }
        host = host << 8 | octet;
    }
    if (at != len) {
        snprintf(why, why_len, "expected %s", ADDR_EXPECTED);
        return -1;
    }
    *addr = htonl(host);
    return 0;
}

/* A prefix length 1..32 without a leading zero. */
static int parse_prefix(const char *text, size_t len, unsigned *bits)
{
    unsigned v = 0;

    if (len == 0 || len > 2 || (len == 2 && text[0] == '0'))
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(text[i] - '0');
    }
    if (v < 1 || v > 32)
        return -1;
    *bits = v;
    return 0;
}

int md_ipv4_parse_subnet(const char *text, size_t len, uint32_t *net,
                         unsigned *prefix, char *why, size_t why_len)
{
    const char *slash = memchr(text, '/', len);
    size_t alen = slash != NULL ? (size_t)(slash - text) : len;
    unsigned bits;
    uint32_t addr;
    char a[MD_IPV4_TEXT_MAX];

    if (slash == NULL || parse_prefix(slash + 1, len - alen - 1, &bits) != 0 ||
        md_ipv4_parse(text, alen, &addr, why, why_len) != 0) {
        snprintf(why, why_len, "expected a subnet A.B.C.D/N (an IPv4 address, then a "
                 "prefix length from 1 to 32, e.g. 10.0.0.0/24)");
        return -1;
    }
    if ((addr & ~md_ipv4_mask(bits)) != 0) {
        snprintf(why, why_len, "expected a subnet without host bits (%s/%u)",
                 md_ipv4_format(addr & md_ipv4_mask(bits), a), bits);
        return -1;
    }
    *net = addr;
    *prefix = bits;
    return 0;
}

uint32_t md_ipv4_mask(unsigned prefix)
{
    return htonl(prefix == 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~(0xffffffffu >> prefix));
}

int md_ipv4_in_subnet(uint32_t addr, uint32_t net, unsigned prefix)
{
    uint32_t mask = md_ipv4_mask(prefix);
    return (addr & mask) == (net & mask);
}

int md_ipv4_is_loopback(uint32_t addr)
{
    return (ntohl(addr) >> 24) == 127;
}

int md_ipv4_is_unicast(uint32_t addr)
{
    uint32_t first = ntohl(addr) >> 24;
    return first != 0 && first < 224;
}

const char *md_ipv4_format(uint32_t addr, char *out)
{
    uint32_t h = ntohl(addr);

    snprintf(out, MD_IPV4_TEXT_MAX, "%u.%u.%u.%u", h >> 24, (h >> 16) & 0xff,
             (h >> 8) & 0xff, h & 0xff);
    return out;
}

int md_ifname_valid(const char *text, size_t len)
{
    if (len == 0 || len >= MD_IFNAME_MAX || (len <= 2 && strncmp(text, "..", len) == 0))
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == ':' || c == '-'))
            return 0;
    }
    return 1;
}
