/*
 * tmod.c - test modules for the loader: one source, compiled once per
 * variant with -DTMOD_NAME=<name> -DTMOD_VARIANT=<n>.
 *
 *   TMOD_GOOD       a complete (do-nothing) function table
 *   TMOD_BAD_ABI    claims SDI ABI version 99
 *   TMOD_NULL_SLOT  leaves the mandatory isend slot NULL
 *   TMOD_NO_SYMBOL  exports a misspelt entry point
 *   TMOD_BAD_NAME   calls itself something else in its table
 *   TMOD_BAD_KIT    was built against subdevice kit ABI version 77
 */
#include "md_sdi.h"

#define TMOD_GOOD      1
#define TMOD_BAD_ABI   2
#define TMOD_NULL_SLOT 3
#define TMOD_NO_SYMBOL 4
#define TMOD_BAD_NAME  5
#define TMOD_BAD_KIT   6

#define TMOD_STR2(x) #x
#define TMOD_STR(x) TMOD_STR2(x)
#define TMOD_CAT2(a, b) a##b
#define TMOD_CAT(a, b) TMOD_CAT2(a, b)

static int tmod_init(md_subdev_t *sd, const md_subdev_init_args_t *args,
                     void *card, size_t *card_len)
{
    (void)sd; (void)args; (void)card;
    *card_len = 0;
    return MD_OK;
}

static int tmod_sd(md_subdev_t *sd) { (void)sd; return MD_OK; }
static int tmod_connect(md_subdev_t *sd, const md_card_table_t *c)
{
    (void)sd; (void)c;
    return MD_OK;
}
static int tmod_req(md_subdev_t *sd, md_request_t *r)
{
    (void)sd; (void)r;
    return MD_ERR_UNSUPPORTED;
}
static int tmod_iprobe(md_subdev_t *sd, const md_match_t *m, int *flag,
                       md_recv_status_t *st)
{
    (void)sd; (void)m; (void)st;
    *flag = 0;
    return MD_OK;
}

#if TMOD_VARIANT == TMOD_NO_SYMBOL
int TMOD_CAT(TMOD_NAME, _LoadDevicePointer)(md_subdev_ops_t *ops);
int TMOD_CAT(TMOD_NAME, _LoadDevicePointer)(md_subdev_ops_t *ops)
#else
MD_LOAD_DEVICE_PTR(TMOD_NAME);
MD_LOAD_DEVICE_PTR(TMOD_NAME)
#endif
{
    ops->abi_version = TMOD_VARIANT == TMOD_BAD_ABI ? 99 : MD_SDI_ABI_VERSION;
    ops->kit_abi_version = TMOD_VARIANT == TMOD_BAD_KIT ? 77 : 0;
    ops->name = TMOD_VARIANT == TMOD_BAD_NAME ? "somebody_else" : TMOD_STR(TMOD_NAME);
    ops->init = tmod_init;
    ops->connect = tmod_connect;
    ops->finalize = tmod_sd;
    ops->isend = TMOD_VARIANT == TMOD_NULL_SLOT ? NULL : tmod_req;
    ops->irecv = tmod_req;
    ops->recv_cancel = tmod_req;
    ops->iprobe = tmod_iprobe;
    ops->progress = tmod_sd;
    return MD_OK;
}
