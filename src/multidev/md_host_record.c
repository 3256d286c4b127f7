/*
 * md_host_record.c - what a rank tells the others about its host: its
 * loopback domain and its addresses (md_hosts.h); and the kernel's answer
 * to "which of my addresses reaches that one".
 */
#include "config.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "md_hosts.h"
#include "md_ifaddr.h"
#include "md_ipv4.h"

/* Two ranks reach each other over 127.0.0.1 exactly when they run on one
 * kernel (the boot id names a boot of one) in one network namespace (the
 * inode of /proc/self/ns/net names it within that kernel). */
static int domain_of_this_process(char *out, size_t len)
{
    char boot[64] = "";
    struct stat ns;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    if (f == NULL)
        return -1;
    if (fgets(boot, sizeof(boot), f) == NULL)
        boot[0] = '\0';
    fclose(f);
    boot[strcspn(boot, "\n")] = '\0';
    if (boot[0] == '\0' || stat("/proc/self/ns/net", &ns) != 0)
        return -1;
    snprintf(out, len, "%s/net:%llu", boot, (unsigned long long)ns.st_ino);
    return 0;
}

void md_host_record_fill(md_host_record_t *rec, const char *host_name)
{
    md_ifaddr_t ifs[MD_IFADDR_MAX];
    int n = md_ifaddr_list(ifs, MD_IFADDR_MAX);

    memset(rec, 0, sizeof(*rec));
    /* Without /proc the host name stands in: right for real hosts, too
     * coarse only for namespaces that share one. */
    if (domain_of_this_process(rec->domain, sizeof(rec->domain)) != 0)
        snprintf(rec->domain, sizeof(rec->domain), "host:%s", host_name);
    for (int i = 0; i < n && rec->num_addrs < MD_HOST_ADDRS_MAX; i++) {
        if (!ifs[i].up || ifs[i].loopback || md_ipv4_is_loopback(ifs[i].addr) ||
            !md_ipv4_is_unicast(ifs[i].addr))
            continue;
        rec->addr[rec->num_addrs] = ifs[i].addr;
        rec->prefix[rec->num_addrs] = ifs[i].prefix;
        memcpy(rec->ifname[rec->num_addrs], ifs[i].name, sizeof(rec->ifname[0]));
        rec->num_addrs++;
    }
}

int32_t md_hosts_domains(const md_host_record_t *rec, int32_t n, int32_t *domain_of_rank)
{
    int32_t num = 0;

    for (int32_t r = 0; r < n; r++) {
        domain_of_rank[r] = num;
        for (int32_t q = 0; q < r; q++) {
            if (strncmp(rec[q].domain, rec[r].domain, MD_HOST_DOMAIN_MAX) == 0) {
                domain_of_rank[r] = domain_of_rank[q];
                break;
            }
        }
        num += domain_of_rank[r] == num;
    }
    return num;
}

int md_route_source_kernel(uint32_t dst, uint32_t *src, void *arg)
{
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) }, from;
    socklen_t len = sizeof(from);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

    (void)arg;
    to.sin_addr.s_addr = dst;
    /* connect() on a UDP socket sends nothing: it only picks the route. */
    if (fd >= 0 && connect(fd, (struct sockaddr *)&to, sizeof(to)) == 0 &&
        getsockname(fd, (struct sockaddr *)&from, &len) == 0) {
        *src = from.sin_addr.s_addr;
        rc = 0;
    }
    if (fd >= 0)
        close(fd);
    return rc;
}
