/* md_nic_addr.c - subdevice kit: which address an emulated NIC's firmware
 * binds (md_nic_addr.h). */
#include "config.h"

#include <ctype.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_ipv4.h"
#include "md_log.h"
#include "md_nic_addr.h"
#include "md_param.h"
#include "md_tun.h"

/* "node <node>, network <net>: <text>" at error level (the host's logger
 * puts the subdevice's name in front). */
__attribute__((format(printf, 4, 5)))
static void log_error(md_subdev_t *sd, const md_nic_addr_t *out,
                      const md_subdev_init_args_t *args, const char *fmt, ...)
{
    char text[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    sd->host->log(sd, MD_LOG_ERROR, "node %s, network %s: %s", args->node_name, out->net, text);
}

static const char *host_of_me(const md_nic_addr_t *out, const md_subdev_init_args_t *args)
{
    return out->hosts != NULL ? out->hosts->host_of_rank[out->me] : args->node_name;
}

/* "lo 127.0.0.1/8, eth0 10.0.0.1/24" for messages. */
static const char *list_addrs(const md_ifaddr_t *ifs, int n, char *buf, size_t len)
{
    char a[MD_IPV4_TEXT_MAX];
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s %s/%u%s", i ? ", " : "",
                                 ifs[i].name, md_ipv4_format(ifs[i].addr, a),
                                 (unsigned)ifs[i].prefix, ifs[i].up ? "" : " (down)");
    if (n <= 0)
        snprintf(buf, len, "none");
    return buf;
}

/* The address and where it came from ("iface=eth1", or what alone). */
static void set_addr(md_nic_addr_t *out, uint32_t ip, int must_match, const char *what,
                     const char *value)
{
    out->ip = ip;
    md_ipv4_format(ip, out->text);
    out->must_match = must_match;
    snprintf(out->source, sizeof(out->source), "%s%s%s", what, value ? "=" : "",
             value ? value : "");
}

/* An address given as such (environment or addr=): a unicast address this
 * host has, or one of its loopback subnet; binding anything else fails,
 * and a nicd that cannot bind is only seen as one that never answers. */
static int from_addr(md_subdev_t *sd, const md_subdev_init_args_t *args, md_nic_addr_t *out,
                     const char *value, const char *what, const md_ifaddr_t *ifs, int n)
{
    char why[160], list[512];
    uint32_t ip;
    int local = n < 0;

    if (md_ipv4_parse(value, strlen(value), &ip, why, sizeof(why)) != 0) {
        log_error(sd, out, args, "%s='%s': %s", what, value, why);
        return MD_ERR_CONFIG;
    }
    if (!md_ipv4_is_unicast(ip)) {
        log_error(sd, out, args, "%s=%s: expected a unicast address (not 0.x.x.x, not "
                  "224.0.0.0 or above)", what, value);
        return MD_ERR_CONFIG;
    }
    for (int i = 0; i < n && !local; i++)
        local = ifs[i].up &&
                (ifs[i].addr == ip ||
                 (ifs[i].loopback && md_ipv4_in_subnet(ip, ifs[i].addr, ifs[i].prefix)));
    if (!local) {
        log_error(sd, out, args, "%s=%s is not an address of host %s (its IPv4 addresses: %s)",
                what, value, host_of_me(out, args), list_addrs(ifs, n, list, sizeof(list)));
        return MD_ERR_CONFIG;
    }
    set_addr(out, ip, 1, what, value);
    return MD_OK;
}

static int from_iface(md_subdev_t *sd, const md_subdev_init_args_t *args, md_nic_addr_t *out,
                      const char *value, const char *what, const md_ifaddr_t *ifs, int n)
{
    char list[512];

    for (int i = 0; i < n; i++) {
        if (strcmp(ifs[i].name, value) != 0)
            continue;
        if (!ifs[i].up) {
            log_error(sd, out, args, "%s=%s: the interface is down", what, value);
            return MD_ERR_CONFIG;
        }
        set_addr(out, ifs[i].addr, 1, what, value);
        return MD_OK;
    }
    log_error(sd, out, args, "%s=%s: host %s has no interface of that name with an IPv4 "
            "address (its IPv4 addresses: %s)", what, value, host_of_me(out, args),
            list_addrs(ifs, n, list, sizeof(list)));
    return MD_ERR_CONFIG;
}

static int from_subnet(md_subdev_t *sd, const md_subdev_init_args_t *args, md_nic_addr_t *out,
                       const char *value, const char *what, const md_ifaddr_t *ifs, int n)
{
    char why[160], list[512];
    uint32_t net;
    unsigned prefix;

    if (md_ipv4_parse_subnet(value, strlen(value), &net, &prefix, why, sizeof(why)) != 0) {
        log_error(sd, out, args, "%s='%s': %s", what, value, why);
        return MD_ERR_CONFIG;
    }
    for (int i = 0; i < n; i++) {
        /* the loopback interface only for a subnet of 127.0.0.0/8 */
        if (!ifs[i].up || !md_ipv4_in_subnet(ifs[i].addr, net, prefix) ||
            (md_ipv4_is_loopback(ifs[i].addr) && !md_ipv4_is_loopback(net)))
            continue;
        set_addr(out, ifs[i].addr, 1, what, value);
        return MD_OK;
    }
    log_error(sd, out, args, "%s=%s: no address of host %s lies in it (its IPv4 addresses: %s)",
            what, value, host_of_me(out, args), list_addrs(ifs, n, list, sizeof(list)));
    return MD_ERR_CONFIG;
}

static int from_default(md_subdev_t *sd, const md_subdev_init_args_t *args,
                        md_nic_addr_t *out, const char *env_addr)
{
    char why[160];
    uint32_t ip;

    if (out->hosts == NULL) {
        set_addr(out, htonl(INADDR_LOOPBACK), 0, "the default of a single host", NULL);
        return MD_OK;
    }
    if (out->hosts->default_addr[0] == '\0' ||
        md_ipv4_parse(out->hosts->default_addr, strlen(out->hosts->default_addr), &ip, why,
                      sizeof(why)) != 0) {
        log_error(sd, out, args, "no address given (%s, addr=, iface= or subnet=), and the job "
                "spans hosts but none of this host's addresses is known to reach them (%s); "
                "give network %s a subnet= or iface= in the description",
                env_addr, out->hosts->default_why, out->net);
        return MD_ERR_CONFIG;
    }
    /* On one host any local address works, so a firmware already bound to
     * another one is as good; across hosts it must be this one. */
    set_addr(out, ip, !md_ipv4_is_loopback(ip), "the job's default", NULL);
    return MD_OK;
}

/* The environment's value of an address variable (declared in the table
 * of tunables as text: what it must be is decided here, against this
 * host); NULL when unset or empty. */
static const char *env_text(const char *name)
{
    const char *v = NULL;

    md_tun_env_text(name, &v, md_log_say_error);
    return v;
}

/* MULTIDEV_<SUBDEV>_<KEY>, its name written into name. */
static const char *env_value(const char *subdev, const char *key, char *name, size_t len)
{
    snprintf(name, len, "MULTIDEV_%s_%s", subdev, key);
    for (char *c = name; *c != '\0'; c++)
        *c = (char)toupper((unsigned char)*c);
    return env_text(name);
}

static const char *param_value(const md_subdev_init_args_t *args, const char *key)
{
    const char *v = md_param_get(args, key);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

int md_nic_addr_choose_from(md_subdev_t *sd, const md_subdev_init_args_t *args,
                            const char *subdev, const md_ifaddr_t *ifs, int n,
                            md_nic_addr_t *out)
{
    char env_addr[64], env_iface[64], env_subnet[64];
    const char *net = md_param_get(args, "net"), *v;
    int rc;

    memset(out, 0, sizeof(*out));
    snprintf(out->subdev, sizeof(out->subdev), "%s", subdev);
    snprintf(out->net, sizeof(out->net), "%s", net != NULL ? net : subdev);
    out->me = args->world_rank;
    out->node_of_rank = args->node_of_rank;
    out->hosts = args->hosts;

    /* The environment first, so that a node can be fixed by hand without
     * writing the description again. */
    if ((v = env_value(subdev, "ADDR", env_addr, sizeof(env_addr))) != NULL)
        rc = from_addr(sd, args, out, v, env_addr, ifs, n);
    else if ((v = env_text("MULTIDEV_NIC_ADDR")) != NULL)
        rc = from_addr(sd, args, out, v, "MULTIDEV_NIC_ADDR", ifs, n);
    else if ((v = env_value(subdev, "IFACE", env_iface, sizeof(env_iface))) != NULL)
        rc = from_iface(sd, args, out, v, env_iface, ifs, n);
    else if ((v = env_value(subdev, "SUBNET", env_subnet, sizeof(env_subnet))) != NULL)
        rc = from_subnet(sd, args, out, v, env_subnet, ifs, n);
    else if ((v = param_value(args, "addr")) != NULL)
        rc = from_addr(sd, args, out, v, "addr", ifs, n);
    else if ((v = param_value(args, "iface")) != NULL)
        rc = from_iface(sd, args, out, v, "iface", ifs, n);
    else if ((v = param_value(args, "subnet")) != NULL)
        rc = from_subnet(sd, args, out, v, "subnet", ifs, n);
    else
        rc = from_default(sd, args, out, env_addr);
    if (rc == MD_OK)
        sd->host->log(sd, MD_LOG_INFO, "node %s, network %s: NIC address %s (%s)", args->node_name,
                      out->net, out->text, out->source);
    return rc;
}

int md_nic_addr_choose(md_subdev_t *sd, const md_subdev_init_args_t *args,
                       const char *subdev, md_nic_addr_t *out)
{
    md_ifaddr_t ifs[MD_IFADDR_MAX];

    return md_nic_addr_choose_from(sd, args, subdev, ifs, md_ifaddr_list(ifs, MD_IFADDR_MAX),
                                   out);
}
