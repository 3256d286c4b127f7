/* nic_pers_list.c - the personalities a firmware can run.  A new
 * personality adds its ops here (and its sources to nic/Makefile.am). */
#include "config.h"

#include <string.h>

#include "nic_fw.h"

extern const nic_pers_ops_t nic_pers_echo_ops;
extern const nic_pers_ops_t nic_myri_lcp_ops;
extern const nic_pers_ops_t nic_via_ops;
extern const nic_pers_ops_t nic_sci_bridge_ops;

static const nic_pers_ops_t *const nic_pers_all[] = {
    &nic_pers_echo_ops,
    &nic_myri_lcp_ops,
    &nic_via_ops,
    &nic_sci_bridge_ops,
};

const nic_pers_ops_t *nic_pers_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof(nic_pers_all) / sizeof(nic_pers_all[0]); i++)
        if (strcmp(nic_pers_all[i]->name, name) == 0)
            return nic_pers_all[i];
    return NULL;
}
