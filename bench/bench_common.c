/* bench_common.c - shared memory, clock, pinning. */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "myri_bench.h"

void *bench_shared(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void bench_pin_pid(pid_t pid, int cpu)
{
    cpu_set_t set;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 2)
        return;
    CPU_ZERO(&set);
    CPU_SET(cpu % n, &set);
    sched_setaffinity(pid, sizeof(set), &set);
}

void bench_pin(int cpu)
{
    bench_pin_pid(0, cpu);
}

int bench_rt(const char *prog)
{
    /* inherited by every rank, nicd and baseline process the run starts */
    if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 10 })) {
        fprintf(stderr, "%s: SCHED_FIFO: ", prog);
        perror(NULL);
        return -1;
    }
    printf("# all processes of this run at SCHED_FIFO priority 10\n");
    return 0;
}
