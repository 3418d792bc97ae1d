/* free.c: a race-free program for Archer (tests/archer): loops (static and
 * dynamic), reductions (blocking and nowait), critical, single and
 * copyprivate, locks, an ordered loop, barriers, tasks that run at once on
 * two threads (each waits to meet the other) and whose writes taskwait
 * orders, a chain of dependences, taskgroup, taskloop, sections, nested
 * regions. Every access is ordered by the OpenMP constructs: a report from
 * ThreadSanitizer is a false one. Exits 1 on a wrong result. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 400

static _Atomic int met;

/* Two tasks meet here: each waits until the other has started, so they
 * run on two threads at once (10 s at most, then the test fails). */
static void meet(int round)
{
    atomic_fetch_add(&met, 1);
    time_t t0 = time(NULL);
    while (atomic_load(&met) < 2 * round)
        if (time(NULL) - t0 > 10) {
            fprintf(stderr, "free: two tasks never ran at once\n");
            exit(2);
        }
}

int main(void)
{
    static double a[N], b[N];
    static long out[N];
    double sum = 0, sum2 = 0;
    long ordered_next = 0, total = 0, in_tasks[2] = {0, 0};
    int count = 0, single_val = 0, x = 0, y = 0, locked = 0, bad = 0, sec[2] = {0, 0};
    omp_lock_t lock;
    omp_init_lock(&lock);
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
#pragma omp for
        for (int i = 0; i < N; i++)
            a[i] = i;
#pragma omp for reduction(+ : sum)
        for (int i = 0; i < N; i++)
            sum += a[i];
#pragma omp for schedule(dynamic, 7) reduction(+ : sum2) nowait
        for (int i = 0; i < N; i++) {
            b[i] = a[N - 1 - i] * 2;
            sum2 += b[i];
        }
#pragma omp barrier
#pragma omp critical
        count++;
#pragma omp single
        single_val = 42;
        omp_set_lock(&lock);
        locked++;
        omp_unset_lock(&lock);
#pragma omp for ordered schedule(dynamic)
        for (int i = 0; i < 20; i++) {
#pragma omp ordered
            {
                bad += ordered_next != i;
                ordered_next++;
            }
        }
        int tid = omp_get_thread_num(), me = tid;
#pragma omp single copyprivate(me)
        me = 7;
        bad += me != 7;
#pragma omp single
        {
            /* two tasks at once on two threads, ordered by the taskwait */
#pragma omp task shared(in_tasks)
            {
                meet(1);
                in_tasks[0] = 1;
            }
#pragma omp task shared(in_tasks)
            {
                meet(1);
                in_tasks[1] = 2;
            }
#pragma omp taskwait
            bad += in_tasks[0] + in_tasks[1] != 3;
            /* a chain of dependences */
#pragma omp task depend(out : x) shared(x)
            x = 1;
#pragma omp task depend(in : x) depend(out : y) shared(x, y)
            y = x + 1;
#pragma omp task depend(in : y) shared(y, bad)
            bad += y != 2;
#pragma omp taskwait
            for (int i = 0; i < N; i++) {
                long v = i * 3;
#pragma omp task firstprivate(v, i) shared(out)
                out[i] = v + 1;
            }
        }
#pragma omp for reduction(+ : total)
        for (int i = 0; i < N; i++)
            total += out[i];
#pragma omp single
        {
#pragma omp taskloop grainsize(10) shared(out)
            for (int i = 0; i < N; i++)
                out[i] *= 2;
        }
#pragma omp taskgroup
        {
#pragma omp task shared(b)
            b[omp_get_thread_num()] += 1;
        }
#pragma omp sections
        {
#pragma omp section
            sec[0] = 5;
#pragma omp section
            sec[1] = 7;
        }
#pragma omp master
        single_val++;
#pragma omp parallel num_threads(2) shared(a)
        {
#pragma omp for
            for (int i = 0; i < 10; i++)
                a[tid * 10 + i + 100] = i; /* each inner team its own rows */
        }
    }
    omp_destroy_lock(&lock);
    long check = 0;
    for (int i = 0; i < N; i++)
        check += out[i];
    bad += sum != 79800 || sum2 != 159600 || count != 2 || single_val != 43 || locked != 2 ||
           ordered_next != 20 || total != 239800 || check != 479600 || sec[0] + sec[1] != 12;
    printf("free: %s\n", bad ? "wrong results" : "ok");
    return bad != 0;
}
