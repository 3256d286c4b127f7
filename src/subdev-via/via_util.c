/* via_util.c - VIPL results as md statuses. */
#include "config.h"

#include "via_impl.h"

/* A VIPL call failed for good: the md status that says why.  Never
 * MD_ERR_NO_RESOURCE, which would tell the caller to retry after
 * progress: VIPL_ERROR_RESOURCE is a table or memory that ran out. */
int vsd_status_of_vipl(vipl_result_t r)
{
    switch (r) {
    case VIPL_ERROR_RESOURCE: return MD_ERR_NO_MEMORY;
    case VIPL_NOT_REACHABLE:  return MD_ERR_PEER_FAILED;
    case VIPL_TIMEOUT:        return MD_ERR_TIMEOUT;
    case VIPL_INVALID_PTAG:   return MD_ERR_PROTECTION;
    default:                  return MD_ERR_IO;
    }
}
