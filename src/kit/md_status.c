/* md_status.c - text for md_status_t codes. */
#include "md_sdi.h"

const char *md_status_string(int status)
{
    switch (status) {
    case MD_OK:              return "success";
    case MD_INPROGRESS:      return "in progress";
    case MD_ERR_NO_RESOURCE: return "resource temporarily unavailable";
    case MD_ERR_INVALID:     return "invalid argument";
    case MD_ERR_NO_MEMORY:   return "out of memory";
    case MD_ERR_UNSUPPORTED: return "operation not supported by the subdevice";
    case MD_ERR_TRUNCATE:    return "message truncated";
    case MD_ERR_NOT_FOUND:   return "not found";
    case MD_ERR_IO:          return "input/output error";
    case MD_ERR_PEER_FAILED: return "peer failed";
    case MD_ERR_TIMEOUT:     return "timed out";
    case MD_ERR_CONFIG:      return "configuration error";
    case MD_ERR_ABI:         return "SDI ABI version mismatch";
    case MD_ERR_PROTECTION:  return "protection error";
    case MD_ERR_NO_ROUTE:    return "no route to peer";
    case MD_ERR_NOT_LOADED:  return "module could not be loaded";
    default:                 return "unknown status";
    }
}
