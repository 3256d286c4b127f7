/*
 * netmod_inline.h - the inlined part of the netmod "multi".
 *
 * ch4's netmod_impl.h includes this file when the netmod is built inline
 * (NETMOD_INLINE=__netmod_inline_multi__, which mpich/build-mpich.sh
 * teaches maint/gen_ch4_api.py); func_table.c includes it otherwise.
 */
#ifndef NETMOD_INLINE_H_INCLUDED
#define NETMOD_INLINE_H_INCLUDED

#include "multi_impl.h"
#include "multi_progress.h"
#include "multi_send.h"
#include "multi_recv.h"
#include "multi_probe.h"
#include "multi_am.h"
#include "multi_rma.h"
#include "multi_part.h"
#include "multi_coll.h"
#include "multi_proc.h"
#include "multi_noinline.h"

#endif /* NETMOD_INLINE_H_INCLUDED */
