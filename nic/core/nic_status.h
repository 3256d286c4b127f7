/*
 * nic_status.h - status codes of the NIC layer.
 *
 * The values equal the md_status_t values of the SDI (md_sdi.h) so that a
 * subdevice can hand them upward unchanged; this header does not include the
 * SDI, since the NIC layer sits below it.
 */
#ifndef NIC_STATUS_H
#define NIC_STATUS_H

enum nic_status {
    NIC_OK              = 0,
    NIC_INPROGRESS      = 1,
    NIC_ERR_NO_RESOURCE = -2,   /* ring or credit full: retry after progress */
    NIC_ERR_INVALID     = -3,
    NIC_ERR_NO_MEMORY   = -4,
    NIC_ERR_UNSUPPORTED = -5,
    NIC_ERR_TRUNCATE    = -6,
    NIC_ERR_NOT_FOUND   = -7,
    NIC_ERR_IO          = -8,
    NIC_ERR_PEER_FAILED = -9,   /* the firmware or a peer firmware died */
    NIC_ERR_TIMEOUT     = -10,
    NIC_ERR_CONFIG      = -11,
    NIC_ERR_ABI         = -12,  /* host library and firmware disagree */
    NIC_ERR_PROTECTION  = -13,  /* wrong job key, foreign endpoint, region */
    NIC_ERR_NO_ROUTE    = -14,  /* bad route bytes, unreachable node */
};

const char *nic_status_str(int status);

#endif /* NIC_STATUS_H */
