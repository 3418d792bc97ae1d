/* team.c: the team a program gets where it is deployed, and where its
 * threads run.
 *
 *   team [NUM_THREADS [REGIONS]]
 *
 * Forks REGIONS regions (default 200), with num_threads(NUM_THREADS) when
 * it is given and positive, else the default team. Every thread of every
 * region checks that its affinity mask and the CPU it runs on lie inside
 * the process's mask as it was before the first region (an MPI launcher's
 * binding, a cgroup's cpuset). Prints one line:
 *   TEAM max_threads=M team=T procs=P thread_limit=L outside=O mask=LIST
 * (team: the first region's size; outside: thread observations outside the
 * mask) and exits 1 when some region's team differs from the first one's
 * or a thread ran outside the mask. With TEAM_SIGTERM_EXIT=N in the
 * environment it first installs a SIGTERM handler of its own that exits
 * with status N (a program that handles the signal itself). */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mask.h"

static cpu_set_t start_mask;
static atomic_int outside, varied;

static void check_thread(void)
{
    if (outside_mask(&start_mask))
        atomic_fetch_add(&outside, 1);
}

static int own_status;

static void own_sigterm(int sig)
{
    (void)sig;
    _exit(own_status);
}

int main(int argc, char **argv)
{
    const char *own = getenv("TEAM_SIGTERM_EXIT");
    if (own != NULL) {
        own_status = atoi(own);
        signal(SIGTERM, own_sigterm);
    }
    int asked = argc > 1 ? atoi(argv[1]) : 0, regions = argc > 2 ? atoi(argv[2]) : 200;
    if (regions < 1) {
        fprintf(stderr, "team: REGIONS must be positive, not '%s'\n", argv[2]);
        return 2;
    }
    CPU_ZERO(&start_mask);
    sched_getaffinity(0, sizeof start_mask, &start_mask);
    int max_threads = omp_get_max_threads(), first = 0;
    for (int r = 0; r < regions; r++) {
        int team = 0;
        if (asked > 0) {
#pragma omp parallel num_threads(asked)
            {
                check_thread();
#pragma omp single
                team = omp_get_num_threads();
            }
        } else {
#pragma omp parallel
            {
                check_thread();
#pragma omp single
                team = omp_get_num_threads();
            }
        }
        if (r == 0)
            first = team;
        else if (team != first)
            atomic_fetch_add(&varied, 1);
    }
    printf("TEAM max_threads=%d team=%d procs=%d thread_limit=%d outside=%d mask=", max_threads,
           first, omp_get_num_procs(), omp_get_thread_limit(), atomic_load(&outside));
    for (int c = 0, n = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &start_mask))
            printf("%s%d", n++ ? "," : "", c);
    printf("\n");
    if (atomic_load(&varied))
        fprintf(stderr, "team: %d regions got another team than the first one's %d\n",
                atomic_load(&varied), first);
    return atomic_load(&varied) || atomic_load(&outside) ? 1 : 0;
}
