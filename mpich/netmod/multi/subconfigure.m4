[#] start of __file__
dnl mpich/netmod/multi/subconfigure.m4 - configure part of the ch4 netmod
dnl "multi" (the multidevice).  Found by MPICH's autogen like every
dnl subconfigure.m4 below src/.
dnl
dnl   --with-multidev=PREFIX   where libmultidev is installed (include/ and
dnl                            lib/); libmpi gets an rpath to PREFIX/lib.
dnl   --with-multidev-include=DIR  take multidev.h and md_request.h from DIR
dnl                            instead of PREFIX/include (build-mpich.sh
dnl                            passes a snapshot whose timestamps change
dnl                            only with the contents: every MPICH object
dnl                            depends on these headers).
dnl
dnl MPICH_SUBCFG_AFTER=src/mpid/ch4

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
    AM_COND_IF([BUILD_CH4],[
        for net in $ch4_netmods ; do
            AS_CASE([$net],[multi],[build_ch4_netmod_multi=yes])
            if test "$net" = "multi" ; then
                AC_DEFINE(HAVE_CH4_NETMOD_MULTI,1,[multi netmod (multidevice) is built])
                if test "$build_ch4_locality_info" != "yes" ; then
                    AC_DEFINE(MPIDI_BUILD_CH4_LOCALITY_INFO, 1, [CH4 should build locality info])
                    build_ch4_locality_info="yes"
                fi
            fi
        done
    ])
    AM_CONDITIONAL([BUILD_CH4_NETMOD_MULTI],[test "X$build_ch4_netmod_multi" = "Xyes"])
])dnl

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_COND_IF([BUILD_CH4_NETMOD_MULTI],[
    AC_MSG_NOTICE([RUNNING CONFIGURE FOR ch4:multi])

    AC_ARG_WITH([multidev],
        AS_HELP_STRING([--with-multidev=PREFIX],
                       [installation prefix of libmultidev (the multidevice)]),
        [], [with_multidev=no])
    AC_ARG_WITH([multidev-include],
        AS_HELP_STRING([--with-multidev-include=DIR],
                       [directory holding multidev.h and md_request.h]),
        [], [with_multidev_include=no])
    if test "$with_multidev_include" != "no" && test "$with_multidev_include" != "yes" ; then
        PAC_APPEND_FLAG([-I${with_multidev_include}], [CPPFLAGS])
    fi
    if test "$with_multidev" != "no" && test "$with_multidev" != "yes" ; then
        PAC_APPEND_FLAG([-I${with_multidev}/include], [CPPFLAGS])
        PAC_APPEND_FLAG([-L${with_multidev}/lib], [LDFLAGS])
        PAC_APPEND_FLAG([-Wl,-rpath,${with_multidev}/lib], [LDFLAGS])
    fi

    AC_CHECK_HEADER([multidev.h], [],
        [AC_MSG_ERROR([multidev.h not found: build and install the multidev project first and pass --with-multidev=PREFIX])])
    AC_CHECK_LIB([mdkit], [md_status_string], [],
        [AC_MSG_ERROR([libmdkit not found: build and install the multidev project first and pass --with-multidev=PREFIX])])
    AC_CHECK_LIB([multidev], [md_init], [],
        [AC_MSG_ERROR([libmultidev not found: build and install the multidev project first and pass --with-multidev=PREFIX])])
    AC_MSG_CHECKING([whether libmultidev speaks API 3])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([#include <multidev.h>], [
        #if MD_API_VERSION != 3
        #error version mismatch
        #endif
        return 0;])], [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([the installed multidev.h is of another API/ABI version than this netmod])])
])dnl end AM_COND_IF(BUILD_CH4_NETMOD_MULTI,...)
])dnl end _BODY

[#] end of __file__
