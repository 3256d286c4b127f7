/*
 * errchain.c - combining two MPI error codes must never make MPICH's error
 * stack a cycle (mpich/err-chain.py).
 *
 * MPICH 4.0.2's broadcast, after a failed receive of the wrong size, adds
 * the receive's code to its result and then a code made on top of that same
 * code: the stack then loops, and MPI_Error_string (and the fatal error
 * handler) never return.  This does exactly that with MPICH's own internal
 * calls: MPIR_Err_create_code is exported; MPIR_Err_combine_codes is not,
 * so its address is taken from the library's symbol table (nm) relative to
 * the exported one.  MPI_Error_string must then return within 10 s
 * (SIGALRM ends the program otherwise) with both locations in the text.
 *
 * Prints "errchain: ok" on success; exits 1 if the symbol cannot be found
 * (a stripped library), 2 if the stack text is wrong.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* MPICH's internal interface (src/include/mpir_err.h) */
int MPIR_Err_create_code(int lastcode, int fatal, const char fcname[], int line,
                         int error_class, const char generic_msg[], const char specific_msg[],
                         ...);
typedef int (*combine_fn)(int, int);

/* The address of `name` in the library that holds MPIR_Err_create_code,
 * from its symbol table; NULL if not found. */
static void *library_symbol(const char *name)
{
    Dl_info info;
    char cmd[4200], line[512], sym[256], type;
    unsigned long long addr, create = 0, wanted = 0;
    FILE *nm;

    if (dladdr((void *)MPIR_Err_create_code, &info) == 0 || info.dli_fname == NULL)
        return NULL;
    snprintf(cmd, sizeof(cmd), "nm '%s' 2>/dev/null", info.dli_fname);
    if ((nm = popen(cmd, "r")) == NULL)
        return NULL;
    while (fgets(line, sizeof(line), nm) != NULL) {
        if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
            continue;
        if (strcmp(sym, "MPIR_Err_create_code") == 0)
            create = addr;
        else if (strcmp(sym, name) == 0)
            wanted = addr;
    }
    pclose(nm);
    if (create == 0 || wanted == 0)
        return NULL;
    return (char *)(void *)MPIR_Err_create_code + (wanted - create);
}

int main(int argc, char **argv)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, first, on_top, stack;
    combine_fn combine;

    MPI_Init(&argc, &argv);
    combine = (combine_fn)library_symbol("MPIR_Err_combine_codes");
    if (combine == NULL) {
        fprintf(stderr, "errchain: MPIR_Err_combine_codes is not in libmpi's symbol table\n");
        return 1;
    }
    /* what the broadcast does: a failed step's code, added to the result;
     * a second code on top of the same one, added too */
    first = MPIR_Err_create_code(MPI_SUCCESS, 0, "errchain_first", 1, MPI_ERR_OTHER, "**fail",
                                 NULL);
    stack = combine(MPI_SUCCESS, first);
    on_top = MPIR_Err_create_code(first, 0, "errchain_on_top", 2, MPI_ERR_OTHER, "**fail", NULL);
    stack = combine(stack, on_top);
    alarm(10);
    MPI_Error_string(stack, text, &len);
    alarm(0);
    if (strstr(text, "errchain_first") == NULL) {
        fprintf(stderr, "errchain: the stack lost the first code: %s\n", text);
        return 2;
    }
    printf("errchain: ok (%d characters of stack)\n", len);
    MPI_Finalize();
    return 0;
}
