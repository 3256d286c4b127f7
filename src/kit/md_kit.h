/*
 * md_kit.h - the subdevice kit: what a subdevice may use beside md_sdi.h.
 *
 * libmdkit is the toolkit that subdevice modules link: the state every
 * subdevice keeps, set up and torn down once (md_sdbase.h), matching (md_mq.h,
 * md_reqlist.h; envelopes from wire headers: md_envelope_wire.h), cookies
 * (md_cookie.h), operation queues (md_opq.h), peer sets
 * (md_peerset.h), awaited lists and liveness probes (md_awaited.h,
 * md_liveness.h), held-back arrivals (md_held.h), the receive and arrival
 * skeleton (md_recv.h), the bounded drain at
 * finalize (md_drain.h), failing what waits on a lost peer
 * (md_peerfail.h), whether a send's peer is served (md_serves.h),
 * completion (md_complete.h),
 * pools (md_pool.h), business cards and NIC addresses (md_card.h,
 * md_nic_addr.h, md_ifaddr.h), parameters and firmware placement
 * (md_param.h, md_firmware.h) and the logger (md_log.h).  It depends on
 * nothing of libmultidev; libmultidev links it.
 *
 * A module embeds kit structs (md_mq_t, md_cookies_t, md_opq_t, ...) in its
 * own state, so their layout is part of an ABI of its own: any change to a
 * struct, inline function or function type of a kit header bumps
 * MD_KIT_ABI_VERSION.  A module says which version it was built with in
 * md_subdev_ops_t.kit_abi_version (MD_KIT_ABI_VERSION, or 0 if it uses no
 * kit header), and the loader refuses one that differs from the libmdkit
 * loaded in the process.
 */
#ifndef MD_KIT_H
#define MD_KIT_H

#ifdef __cplusplus
extern "C" {
#endif

#define MD_KIT_ABI_VERSION 1

/* The members of a module's md_subdev_ops_t that are not its functions, in
 * a designated initialiser: the SDI and kit ABI versions it was built with
 * (md_sdi.h must be included too) and its name, which must be the
 * module's.  So a module's table is a static const holding only its own:
 *     static const md_subdev_ops_t self_ops = {
 *         MD_SUBDEV_OPS_HEADER("self"),
 *         .init = self_init, ...
 *     };
 * and <name>_LoadDevicePtr copies it (*ops = self_ops). */
#define MD_SUBDEV_OPS_HEADER(module_name)                               \
    .abi_version = MD_SDI_ABI_VERSION, .kit_abi_version = MD_KIT_ABI_VERSION, \
    .name = (module_name)

/* MD_KIT_ABI_VERSION of the libmdkit this process runs. */
unsigned md_kit_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MD_KIT_H */
