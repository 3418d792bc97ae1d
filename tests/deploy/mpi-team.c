/* mpi-team.c: an MPI + OpenMP job's ranks on buddypool.
 *
 *   mpirun -np R [binding] mpi-team [NUM_THREADS [REGIONS]]
 *
 * Each rank notes the CPUs the launcher bound it to, forks REGIONS regions
 * (default 200; num_threads(NUM_THREADS) when given and positive, else the
 * default team), and every thread of every region checks that its affinity
 * mask and the CPU it runs on lie inside the rank's. Rank 0 gathers one line
 * per rank and prints them:
 *   RANK r team=T max_threads=M outside=O varied=V pool_workers=W mask=LIST
 * (team: the first region's; varied: regions whose team differed;
 * pool_workers: thread observations, thread 0's left out, on a thread
 * named buddypool-N, as buddypool names its workers). Exits 1
 * when a thread ran outside its rank's mask or a team varied. */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mask.h"

enum { LINE = 512 };

static cpu_set_t rank_mask;
static atomic_int outside, pool_workers;

static void check_thread(void)
{
    if (outside_mask(&rank_mask))
        atomic_fetch_add(&outside, 1);
}

int main(int argc, char **argv)
{
    CPU_ZERO(&rank_mask);
    sched_getaffinity(0, sizeof rank_mask, &rank_mask); /* the launcher's binding */
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int asked = argc > 1 ? atoi(argv[1]) : 0, regions = argc > 2 ? atoi(argv[2]) : 200;
    int first = 0, varied = 0;
    for (int r = 0; r < regions; r++) {
        int team = 0;
#pragma omp parallel num_threads(asked > 0 ? asked : omp_get_max_threads())
        {
            check_thread();
            char name[16] = "";
            /* buddypool names its workers buddypool-N */
            if (omp_get_thread_num() > 0 && pthread_getname_np(pthread_self(), name, sizeof name) == 0 &&
                strncmp(name, "buddypool-", 10) == 0)
                atomic_fetch_add(&pool_workers, 1);
#pragma omp single
            team = omp_get_num_threads();
        }
        if (r == 0)
            first = team;
        else if (team != first)
            varied++;
    }
    char line[LINE];
    int n = snprintf(line, sizeof line,
                     "RANK %d team=%d max_threads=%d outside=%d varied=%d pool_workers=%d mask=",
                     rank, first, omp_get_max_threads(), atomic_load(&outside), varied,
                     atomic_load(&pool_workers));
    for (int c = 0, k = 0; c < CPU_SETSIZE && n < LINE - 8; c++)
        if (CPU_ISSET(c, &rank_mask))
            n += snprintf(line + n, sizeof line - (size_t)n, "%s%d", k++ ? "," : "", c);
    char *all = rank == 0 ? malloc((size_t)size * LINE) : NULL;
    MPI_Gather(line, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < size; i++)
            printf("%s\n", all + (size_t)i * LINE);
        free(all);
    }
    int bad = atomic_load(&outside) != 0 || varied != 0, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
