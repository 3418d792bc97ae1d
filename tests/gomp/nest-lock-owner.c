/* nest-lock-owner.c: a nestable lock belongs to the task that took it
 * (OpenMP 3.0 on), whatever regions that task forks meanwhile.
 *
 * The initial task takes a nestable lock before any other OpenMP call (so
 * before the runtime has looked at its ICVs), then forks a region of one
 * (`if (0)`) and a team: their implicit tasks are other tasks, to which
 * omp_test_nest_lock answers 0. Back in the initial task the lock is still
 * its own: omp_test_nest_lock gives the next nesting count, and
 * omp_set_nest_lock takes it again at once (a runtime that forgot the owner
 * answers 0 and then waits for ever: the test's timeout). */
#include <omp.h>
#include <stdio.h>

#include "gomp-check.h"

int main(void)
{
    omp_nest_lock_t lock;
    omp_init_nest_lock(&lock);
    EXPECT_EQ(omp_test_nest_lock(&lock), 1, "the first take");
    EXPECT_EQ(omp_test_nest_lock(&lock), 2, "the owner takes it again");
    int others = 0;
#pragma omp parallel if (0) reduction(+ : others)
    others += omp_test_nest_lock(&lock) != 0;
    EXPECT_EQ(others, 0, "a region of one's implicit task does not own it");
    EXPECT_EQ(omp_test_nest_lock(&lock), 3, "the owner's, after a region of one");
#pragma omp parallel num_threads(2) reduction(+ : others)
    others += omp_test_nest_lock(&lock) != 0;
    EXPECT_EQ(others, 0, "no implicit task of a team owns it");
    omp_set_nest_lock(&lock); /* the owner's fourth take: at once */
    EXPECT_EQ(omp_test_nest_lock(&lock), 5, "the owner's, after a team");
    for (int i = 0; i < 5; i++)
        omp_unset_nest_lock(&lock);
    int free_now = 0;
#pragma omp parallel num_threads(2) reduction(+ : free_now)
    {
#pragma omp single
        {
            free_now = omp_test_nest_lock(&lock) == 1;
            omp_unset_nest_lock(&lock);
        }
    }
    EXPECT_EQ(free_now, 1, "free after five releases");
    omp_destroy_nest_lock(&lock);
    return check_summary("nest-lock-owner");
}
