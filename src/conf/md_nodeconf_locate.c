/*
 * md_nodeconf_locate.c - which file holds a node's configuration, given
 * what the user named (MULTIDEV_CONFIG, mdinfo --node-file): that file,
 * or <node>.conf in that directory, as mdconfig -o writes them.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "md_nodeconf.h"

int md_nodeconf_locate(const char *what, const char *path, char *node, size_t node_len,
                       char *file, size_t file_len, char *err, size_t err_len)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        snprintf(err, err_len, "%s=%s: no such file or directory", what, path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(file, file_len, "%s", path);
        return 0;
    }
    if (node[0] == '\0' && gethostname(node, node_len - 1) != 0)
        node[0] = '\0';
    node[node_len - 1] = '\0';
    snprintf(file, file_len, "%s/%s.conf", path, node);
    if (stat(file, &st) != 0) {
        snprintf(err, err_len, "%s=%s holds no configuration for node %s (expected %s); "
                 "set MULTIDEV_NODE to one of the nodes mdconfig wrote", what, path, node,
                 file);
        return -1;
    }
    return 0;
}
