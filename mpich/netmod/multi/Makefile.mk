##
## mpich/netmod/multi/Makefile.mk - the netmod "multi" inside MPICH's
## automake build (mpich/build-mpich.sh adds the include line for it to
## src/mpid/ch4/netmod/Makefile.mk).
##

if BUILD_CH4_NETMOD_MULTI

noinst_HEADERS += src/mpid/ch4/netmod/multi/multi_pre.h \
                  src/mpid/ch4/netmod/multi/multi_impl.h \
                  src/mpid/ch4/netmod/multi/netmod_inline.h \
                  src/mpid/ch4/netmod/multi/multi_noinline.h \
                  src/mpid/ch4/netmod/multi/multi_progress.h \
                  src/mpid/ch4/netmod/multi/multi_send.h \
                  src/mpid/ch4/netmod/multi/multi_recv.h \
                  src/mpid/ch4/netmod/multi/multi_probe.h \
                  src/mpid/ch4/netmod/multi/multi_am.h \
                  src/mpid/ch4/netmod/multi/multi_rma.h \
                  src/mpid/ch4/netmod/multi/multi_part.h \
                  src/mpid/ch4/netmod/multi/multi_coll.h \
                  src/mpid/ch4/netmod/multi/multi_proc.h

mpi_core_sources += src/mpid/ch4/netmod/multi/func_table.c \
                    src/mpid/ch4/netmod/multi/multi_init.c \
                    src/mpid/ch4/netmod/multi/multi_comm.c \
                    src/mpid/ch4/netmod/multi/multi_request.c \
                    src/mpid/ch4/netmod/multi/multi_am.c \
                    src/mpid/ch4/netmod/multi/multi_win.c \
                    src/mpid/ch4/netmod/multi/multi_misc.c

errnames_txt_files += src/mpid/ch4/netmod/multi/errnames.txt

endif
