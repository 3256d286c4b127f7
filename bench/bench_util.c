/* Helpers shared by pingpong.c and bandwidth.c; see bench_util.h. */
#include "bench_util.h"

#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    unsigned long long mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1024ULL, end++;
    else if (*end == 'm' || *end == 'M')
        mult = 1024ULL * 1024ULL, end++;
    else if (*end == 'g' || *end == 'G')
        mult = 1024ULL * 1024ULL * 1024ULL, end++;
    if (*end == 'i' && mult > 1) /* accept KiB/MiB spelled "4Mi" */
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}

static int parse_long(const char *s, long *out, long min)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < min)
        return -1;
    *out = v;
    return 0;
}

static int parse_pair(const char *s, int *a, int *b)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || (*end != ',' && *end != ':') || x < 0)
        return -1;
    const char *p = end + 1;
    long y = strtol(p, &end, 10);
    if (end == p || *end != '\0' || y < 0 || x == y)
        return -1;
    *a = (int)x;
    *b = (int)y;
    return 0;
}

static void usage(FILE *f, const char *prog, const char *extra)
{
    fprintf(f,
            "usage: %s [options]\n"
            "  --min-size N     smallest message size (suffix K or M allowed)\n"
            "  --max-size N     largest message size (default 4M)\n"
            "  --size N         measure this one size only\n"
            "  --iters N        timed iterations for sizes <= 8K (scaled down above)\n"
            "  --warmup N       untimed iterations for sizes <= 8K (scaled down above)\n"
            "  --any-source     receives are posted with MPI_ANY_SOURCE\n"
            "  --any-tag        receives are posted with MPI_ANY_TAG\n"
            "  --check          fill every message with a (size, iteration, rank)\n"
            "                   pattern and verify every received byte and status;\n"
            "                   exits non-zero on any mismatch (timings not meaningful)\n"
            "  --pair A,B       measure between ranks A and B (default 0,1)\n"
            "%s"
            "  --help           this text\n",
            prog, extra ? extra : "");
}

int bench_parse_opts(int argc, char **argv, struct bench_opts *o, int verbose,
                     const char *prog, const char *extra_usage)
{
    enum { O_MIN = 256, O_MAX, O_SIZE, O_ITERS, O_WARMUP, O_WINDOW, O_ANYSRC,
           O_ANYTAG, O_CHECK, O_PAIR, O_HELP };
    static const struct option longopts[] = {
        {"min-size", required_argument, NULL, O_MIN},
        {"max-size", required_argument, NULL, O_MAX},
        {"size", required_argument, NULL, O_SIZE},
        {"iters", required_argument, NULL, O_ITERS},
        {"warmup", required_argument, NULL, O_WARMUP},
        {"window", required_argument, NULL, O_WINDOW},
        {"any-source", no_argument, NULL, O_ANYSRC},
        {"any-tag", no_argument, NULL, O_ANYTAG},
        {"check", no_argument, NULL, O_CHECK},
        {"pair", required_argument, NULL, O_PAIR},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    int c;
    long w;
    opterr = verbose;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case O_MIN: bad = parse_size(optarg, &o->min_size); break;
        case O_MAX: bad = parse_size(optarg, &o->max_size); break;
        case O_SIZE:
            bad = parse_size(optarg, &o->min_size);
            o->max_size = o->min_size;
            break;
        case O_ITERS: bad = parse_long(optarg, &o->iters, 1); break;
        case O_WARMUP: bad = parse_long(optarg, &o->warmup, 0); break;
        case O_WINDOW:
            bad = parse_long(optarg, &w, 1) || w > 4096;
            if (!bad)
                o->window = (int)w;
            break;
        case O_ANYSRC: o->any_source = 1; break;
        case O_ANYTAG: o->any_tag = 1; break;
        case O_CHECK: o->check = 1; break;
        case O_PAIR: bad = parse_pair(optarg, &o->rank_a, &o->rank_b); break;
        case O_HELP:
            if (verbose)
                usage(stdout, prog, extra_usage);
            return 1;
        default:
            if (verbose)
                usage(stderr, prog, extra_usage);
            return -1;
        }
        if (bad) {
            if (verbose)
                fprintf(stderr, "%s: bad value '%s' for an option\n", prog, optarg);
            return -1;
        }
    }
    if (optind < argc) {
        if (verbose)
            fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
        return -1;
    }
    if (o->min_size > o->max_size) {
        if (verbose)
            fprintf(stderr, "%s: --min-size is larger than --max-size\n", prog);
        return -1;
    }
    return 0;
}

int bench_check_pair(const struct bench_opts *o, int nprocs, int verbose, const char *prog)
{
    if (o->rank_a < nprocs && o->rank_b < nprocs)
        return 0;
    if (verbose)
        fprintf(stderr, "%s: needs ranks %d and %d but the job has %d rank(s)\n", prog,
                o->rank_a, o->rank_b, nprocs);
    return -1;
}

void bench_print_library(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = '\0';
    printf("# library: %s\n", lib);
}

int bench_size_list(const struct bench_opts *o, size_t *sizes)
{
    int n = 0;
    sizes[n++] = o->min_size;
    size_t p = 1;
    while (p <= o->min_size)
        p <<= 1;
    for (; p <= o->max_size && n < BENCH_MAX_SIZES - 1; p <<= 1)
        sizes[n++] = p;
    if (sizes[n - 1] != o->max_size)
        sizes[n++] = o->max_size;
    return n;
}

long bench_scale_iters(long base, size_t size, long floor_n)
{
    if (size <= BENCH_LARGE_SIZE)
        return base;
    long n = (long)((double)base * (double)BENCH_LARGE_SIZE / (double)size);
    if (n < floor_n)
        n = floor_n;
    if (n > base)
        n = base;
    return n < 1 ? 1 : n;
}

void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    long page = sysconf(_SC_PAGESIZE);
    if (bytes == 0)
        bytes = 1;
    if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, bytes) != 0) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(p, 0, bytes); /* fault the pages in before anything is timed */
    return p;
}

/* splitmix64 finaliser: a cheap, well-mixed 64-bit hash. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t pattern_seed(size_t size, uint64_t seq, int sender)
{
    return mix64(mix64(mix64((uint64_t)size + 0x9e3779b97f4a7c15ULL) ^ seq) ^
                 (uint64_t)(unsigned)sender);
}

static inline uint64_t pattern_word(uint64_t seed, size_t word)
{
    return mix64(seed + (uint64_t)word * 0x9e3779b97f4a7c15ULL);
}

void bench_fill(unsigned char *buf, size_t size, uint64_t seq, int sender)
{
    uint64_t seed = pattern_seed(size, seq, sender);
    size_t nw = size / 8, i;
    for (i = 0; i < nw; i++) {
        uint64_t v = pattern_word(seed, i);
        memcpy(buf + 8 * i, &v, 8);
    }
    if (size % 8) {
        uint64_t v = pattern_word(seed, nw);
        memcpy(buf + 8 * nw, &v, size % 8);
    }
}

unsigned char bench_expected_byte(size_t size, uint64_t seq, int sender, size_t off)
{
    uint64_t v = pattern_word(pattern_seed(size, seq, sender), off / 8);
    unsigned char b[8];
    memcpy(b, &v, 8);
    return b[off % 8];
}

size_t bench_verify(const unsigned char *buf, size_t size, uint64_t seq, int sender)
{
    uint64_t seed = pattern_seed(size, seq, sender);
    size_t nw = (size + 7) / 8, i;
    for (i = 0; i < nw; i++) {
        uint64_t v = pattern_word(seed, i);
        size_t len = (i == nw - 1 && size % 8) ? size % 8 : 8;
        if (memcmp(buf + 8 * i, &v, len) != 0) {
            size_t j;
            for (j = 8 * i; j < 8 * i + len; j++)
                if (buf[j] != bench_expected_byte(size, seq, sender, j))
                    return j;
        }
    }
    return (size_t)-1;
}

void bench_sync(MPI_Comm comm, int active)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(comm, &req);
    if (active) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        return;
    }
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            struct timespec ts = {0, 200 * 1000}; /* 200 us */
            nanosleep(&ts, NULL);
        }
    }
}

const char *bench_size_str(size_t size, char *buf, size_t len)
{
    if (size >= 1024 * 1024 && size % (1024 * 1024) == 0)
        snprintf(buf, len, "%zuM", size / (1024 * 1024));
    else if (size >= 1024 && size % 1024 == 0)
        snprintf(buf, len, "%zuK", size / 1024);
    else
        snprintf(buf, len, "%zu", size);
    return buf;
}
