#!/usr/bin/env python3
"""mpich/err-chain.py ERRUTIL_C - combining two MPI error codes never closes
a cycle in MPICH's error ring.

MPICH 4.0.2 keeps the stack behind an error code as a chain of ring entries
(prev_error).  MPIR_Err_combine_codes(a, b) appends b's chain after the last
entry of a's.  If b's chain already passes an entry of a's, that closes a
cycle, and everything that walks the chain later (the fatal error handler,
MPI_Error_string, the next combine) spins for ever.  MPICH's own collectives
do it: the binomial broadcast adds a failed receive's code to its result,
then makes a size-mismatch code on top of the same code and adds that too.
A process failure in a broadcast then hung the job instead of reporting it
(test/mpi/faults.sh stop-bcast; the netmod also avoids the mismatch, see
mpich/netmod/multi/multi_request.c).

This inserts our own check at the start of the full-message-level
CombineSpecificCodes of src/mpi/errhan/errutil.c: if the chains meet (or
either is longer than the ring, i.e. already a cycle), b is not appended;
a keeps its own stack and the call's result is still a, as before.  The file
is rewritten in place; the script fails if the function is not where it
expects it.
"""
import sys

MARK = 'mpich/err-chain.py'

HELPER = """/* multidevice (mpich/err-chain.py): whether the chains of ring entries
 * from codes a and b share an entry, or either is longer than the ring
 * (then it is a cycle already).  Appending b after a would close a cycle. */
static int multidev_err_chains_meet(int a, int b)
{
    unsigned char seen[MAX_ERROR_RING] = { 0 };
    int pass, code, steps, ring_idx, ring_id, generic_idx;

    for (pass = 0; pass < 2; pass++) {
        code = pass == 0 ? b : a;
        for (steps = 0; code != MPI_SUCCESS; steps++) {
            if (steps >= MAX_ERROR_RING)
                return 1;
            if (convertErrcodeToIndexes(code, &ring_idx, &ring_id, &generic_idx) != 0 ||
                generic_idx < 0 || ErrorRing[ring_idx].id != ring_id)
                break;
            if (pass == 1 && seen[ring_idx])
                return 1;
            seen[ring_idx] = 1;
            code = ErrorRing[ring_idx].prev_error;
        }
    }
    return 0;
}

"""

GUARD = """    /* multidevice (mpich/err-chain.py): never close a cycle */
    if (multidev_err_chains_meet(error1_code, error2_code)) {
        error_ring_mutex_unlock();
        return;
    }
"""

HEAD = 'static void CombineSpecificCodes(int error1_code, int error2_code, int error2_class)\n{\n'
LOCK = '    error_ring_mutex_lock();\n'


def main(path):
    text = open(path).read()
    if MARK in text:
        print('err-chain: already patched')
        return
    # the last definition is the full-message level's (the others are empty)
    start = text.rfind(HEAD)
    lock = text.find(LOCK, start)
    end = text.find('\n}\n', start)
    if start < 0 or lock < 0 or end < 0 or lock > end or 'ErrorRing' not in text[start:end]:
        sys.exit('%s: CombineSpecificCodes over ErrorRing, with its lock, not found' % path)
    lock += len(LOCK)
    text = text[:start] + HELPER + text[start:lock] + GUARD + text[lock:]
    open(path, 'w').write(text)
    print('err-chain: CombineSpecificCodes checks for cycles')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: err-chain.py src/mpi/errhan/errutil.c')
    main(sys.argv[1])
