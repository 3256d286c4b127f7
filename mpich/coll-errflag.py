#!/usr/bin/env python3
"""mpich/coll-errflag.py MPIR_COLL_C - a failure inside a blocking collective
becomes the collective's error.

MPICH 4.0.2's collective algorithms record a failed step in *errflag and go
on (so that the others hear of it), but several of them return the status
of their last step instead of the error they recorded: allreduce's
recursive doubling, for one, ends with MPIR_Reduce_local's MPI_SUCCESS after
a failed MPIC_Sendrecv, and MPI_Allreduce returns MPI_SUCCESS with a sum
that misses a rank's share (issue 18).  The MPI bindings look only at the
returned status.  So, in the generated wrappers MPIR_<Coll>(..., errflag)
of src/mpi/coll/mpir_coll.c, which every binding calls, this adds our own
check before the return: a collective whose errflag says it failed returns
an error of class MPIX_ERR_PROC_FAILED (a process failed) or MPI_ERR_OTHER.
The file is rewritten in place; the script fails if it finds no wrapper or
a wrapper without the return it expects.
"""
import re
import sys

CHECK = """    /* multidevice (mpich/coll-errflag.py): a failure recorded only in
     * errflag is the collective's error */
    if (mpi_errno == MPI_SUCCESS && *errflag != MPIR_ERR_NONE)
        mpi_errno = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                         *errflag == MPIR_ERR_PROC_FAILED ?
                                         MPIX_ERR_PROC_FAILED : MPI_ERR_OTHER,
                                         "**coll_fail", NULL);
"""

def main(path):
    text = open(path).read()
    # int MPIR_Allreduce(...MPIR_Errflag_t * errflag)\n{ ... \n    return mpi_errno;\n}
    wrapper = re.compile(r'^int (MPIR_[A-Z][a-z_]*)\((?:[^)]|\n)*?MPIR_Errflag_t \* errflag\)\n\{\n',
                         re.M)
    out, pos, names = [], 0, []
    for m in wrapper.finditer(text):
        name = m.group(1)
        if name.endswith(('_impl', '_auto')):
            continue
        end = text.find('\n}\n', m.end())
        ret = text.rfind('    return mpi_errno;\n', m.end(), end + 1)
        if end < 0 or ret < 0:
            sys.exit('%s: %s has no final "return mpi_errno;"' % (path, name))
        if 'coll-errflag.py' in text[m.end():end]:
            continue                              # already patched
        out.append(text[pos:ret])
        out.append(CHECK)
        pos = ret
        names.append(name)
    if not names and 'coll-errflag.py' not in text:
        sys.exit('%s: no collective wrapper found' % path)
    out.append(text[pos:])
    open(path, 'w').write(''.join(out))
    print('coll-errflag: %d wrappers checked: %s' % (len(names), ' '.join(names)))

if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: coll-errflag.py src/mpi/coll/mpir_coll.c')
    main(sys.argv[1])
