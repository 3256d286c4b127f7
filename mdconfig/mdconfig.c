/* mdconfig - placeholder main while the router is written. */
#include <stdio.h>

#include "mdc_desc.h"

int main(int argc, char **argv)
{
    char err[MDC_ERR_MAX];
    mdc_desc_t *d;

    if (argc < 2)
        return 2;
    if (mdc_desc_parse_file(argv[1], &d, err, sizeof(err)) != 0) {
        fprintf(stderr, "mdconfig: %s\n", err);
        return 1;
    }
    printf("%zu nodes, %zu networks, %zu segments\n", d->num_nodes,
           d->num_networks, d->num_segments);
    mdc_desc_free(d);
    return 0;
}
