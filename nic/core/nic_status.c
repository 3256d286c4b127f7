/* nic_status.c - text for nic status codes. */
#include "nic_status.h"

const char *nic_status_str(int status)
{
    switch (status) {
    case NIC_OK:              return "success";
    case NIC_INPROGRESS:      return "in progress";
    case NIC_ERR_NO_RESOURCE: return "resource temporarily unavailable";
    case NIC_ERR_INVALID:     return "invalid argument";
    case NIC_ERR_NO_MEMORY:   return "out of memory";
    case NIC_ERR_UNSUPPORTED: return "not supported";
    case NIC_ERR_TRUNCATE:    return "truncated";
    case NIC_ERR_NOT_FOUND:   return "not found";
    case NIC_ERR_IO:          return "input/output error";
    case NIC_ERR_PEER_FAILED: return "firmware or peer failed";
    case NIC_ERR_TIMEOUT:     return "timed out";
    case NIC_ERR_CONFIG:      return "configuration error";
    case NIC_ERR_ABI:         return "host/NIC ABI mismatch";
    case NIC_ERR_PROTECTION:  return "protection error";
    case NIC_ERR_NO_ROUTE:    return "no route";
    default:                  return "unknown nic status";
    }
}
