/* num-threads-strict.c: OpenMP 6.0's num_threads(strict: n) with its
 * severity and message (clang 22 calls __kmpc_push_num_threads_strict),
 * and the list form num_threads(a, b) (__kmpc_push_num_threads_list,
 * called here directly: clang 22 does not parse the list yet). A strict
 * count the region can have gives exactly that team; one it cannot have
 * (a nested region past max-active-levels) warns and goes on with the
 * team it got, or, at severity(fatal) (run with the argument `fatal`),
 * stops the program. A list gives its first count to the region and its
 * second to the regions that region's threads fork and to those nested
 * deeper (the last count of a list goes on), and no other region; run
 * also with OMP_NUM_THREADS=2,2,2, whose list the pushed one replaces.
 * Built by clang, on buddypool and on libomp. */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "gomp-check.h"

int __kmpc_global_thread_num(void *loc);
void __kmpc_push_num_threads_list(void *loc, int gtid, uint32_t length, int32_t *list);

int main(int argc, char **argv)
{
    check_team_size("num-threads-strict");
    omp_set_max_active_levels(1);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
#pragma omp parallel num_threads(2)
        {
#pragma omp parallel num_threads(strict : 2) severity(fatal) message("strict, fatal")
            printf("num-threads-strict: went on past a fatal strict count\n");
        }
        return 1;
    }
    int got = 0, inner = 0, inner_max = 0, after_max = 0;
#pragma omp parallel num_threads(strict : 2) severity(warning) message("never said")
#pragma omp single
    got = omp_get_num_threads();
    EXPECT_EQ(got, 2, "num_threads(strict: 2)");

#pragma omp parallel num_threads(2)
    {
        /* past max-active-levels 1: one thread, a warning, and on */
#pragma omp parallel num_threads(strict : 3) severity(warning) message("strict, warned")
#pragma omp single
        if (omp_get_ancestor_thread_num(1) == 0)
            inner = omp_get_num_threads();
    }
    EXPECT_EQ(inner, 1, "a strict count past max-active-levels: the team it got");

    omp_set_max_active_levels(3);
    int deeper = 0;
    int before_max = omp_get_max_threads();
    int32_t list[2] = {2, 3};
    __kmpc_push_num_threads_list(NULL, __kmpc_global_thread_num(NULL), 2, list);
#pragma omp parallel
    {
#pragma omp single
        {
            got = omp_get_num_threads();
            inner_max = omp_get_max_threads();
        }
#pragma omp parallel
        {
#pragma omp single
            if (omp_get_ancestor_thread_num(1) == 0)
                inner = omp_get_num_threads();
            /* a level deeper, the list's last count goes on (also over an
             * OMP_NUM_THREADS list: the pushed list replaced it) */
#pragma omp parallel
#pragma omp single
            if (omp_get_ancestor_thread_num(1) == 0 && omp_get_ancestor_thread_num(2) == 0)
                deeper = omp_get_num_threads();
        }
    }
    after_max = omp_get_max_threads();
    EXPECT_EQ(got, 2, "num_threads(2, 3): the region");
    EXPECT_EQ(inner_max, 3, "num_threads(2, 3): its threads' nthreads-var");
    EXPECT_EQ(inner, 3, "num_threads(2, 3): the region nested in it");
    EXPECT_EQ(deeper, 3, "num_threads(2, 3): a region nested a level deeper");
    EXPECT_EQ(after_max, before_max, "num_threads(2, 3): the caller's nthreads-var");
#pragma omp parallel
#pragma omp single
    got = omp_get_num_threads();
    EXPECT_EQ(got, before_max, "the next region: the list is used once");
    return check_summary("num-threads-strict");
}
