/* md_serves.c - a send to a peer the subdevice does not serve
 * (md_serves.h). */
#include "config.h"

#include "md_log.h"
#include "md_serves.h"

int md_serves_refuse(md_subdev_t *sd, int32_t peer)
{
    sd->host->log(sd, MD_LOG_ERROR, "no route to rank %d: this subdevice does not serve it",
                  (int)peer);
    return MD_ERR_NO_ROUTE;
}
