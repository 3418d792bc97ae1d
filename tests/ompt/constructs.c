/* constructs.c: the constructs whose events the OMPT tests check
 * (tests/ompt, record.c), in one region of 2 threads: barriers, loops with
 * reductions (blocking and nowait), critical sections (unnamed and named),
 * locks and nestable locks (set, test, nested), an ordered loop, an atomic
 * update of a long double (gcc's goes through the runtime), single with
 * copyprivate, tasks (deferred, with dependences, undeferred, final with
 * an included child, detached), taskwait (and with dependences),
 * taskgroup, taskloop; then in a second region a dynamic loop, sections,
 * single, master and masked, flush, and in a third cancel parallel.
 * Each construct is counted as the program runs it, and one line says
 * what a tool must have seen:
 *   CONSTRUCTS compiler=C barriers=N reductions=N critical=N locks=N
 *     tested=N nested=N ordered=N atomics=N tasks=N depend_tasks=N
 *     taskwaits=N taskgroups=N taskloops=N masked=N sections=N singles=N
 *     chunks=N flushes=N cancels=N bad=N
 * (compiler: 1 clang, 2 gcc; a test_lock that got the lock counts in
 * tested). The results are checked too: the program exits 1 on a wrong
 * one. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

static _Atomic long barriers, reductions, critical, locks, tested, nested, ordered, atomics,
    tasks, depend_tasks, taskwaits, taskgroups, taskloops, ran, iterations, masked, sections,
    singles, chunks, flushes, cancels;

static void count(_Atomic long *c) { atomic_fetch_add(c, 1); }

int main(void)
{
    long sum = 0, sum2 = 0, chain = 0, order_next = 0;
    long double ld = 0;
    int bad = 0, x = 0;
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
#pragma omp barrier
        count(&barriers);
#pragma omp for reduction(+ : sum)
        for (int i = 0; i < 100; i++)
            sum += i;
#pragma omp single
        count(&reductions), count(&singles);
#pragma omp for reduction(+ : sum2) nowait
        for (int i = 0; i < 100; i++)
            sum2 += 2 * i;
#pragma omp single
        count(&reductions), count(&singles);
#pragma omp critical
        count(&critical);
#pragma omp critical(named)
        count(&critical);
        for (int k = 0; k < 2; k++) {
            omp_set_lock(&lock);
            count(&locks);
            omp_unset_lock(&lock);
        }
        if (omp_test_lock(&lock)) {
            count(&tested);
            omp_unset_lock(&lock);
        }
        omp_set_nest_lock(&nest);
        omp_set_nest_lock(&nest);
        count(&nested);
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
#pragma omp for ordered schedule(dynamic)
        for (int i = 0; i < 10; i++) {
#pragma omp ordered
            {
                bad += order_next != i;
                order_next++;
                count(&ordered);
            }
        }
#ifndef __clang__ /* clang's goes to libatomic, never to the runtime */
#pragma omp atomic
        ld += 1.0L;
        count(&atomics);
#else
#pragma omp critical
        ld += 1.0L;
        count(&critical);
#endif
#pragma omp barrier
        count(&barriers);
        long copied = 0;
#pragma omp single copyprivate(copied)
        copied = 7, count(&singles);
        bad += copied != 7;
#pragma omp single
        {
            count(&singles);
            for (int i = 0; i < 20; i++) {
                count(&tasks);
#pragma omp task
                count(&ran);
            }
            for (int i = 0; i < 5; i++) {
                count(&tasks);
                count(&depend_tasks);
#pragma omp task depend(inout : chain) shared(chain)
                chain++;
            }
            count(&tasks);
#pragma omp task if (0)
            x++;
            count(&tasks);
#pragma omp task final(1) shared(x)
            {
                count(&tasks);
#pragma omp task shared(x)
                x++;
            }
            omp_event_handle_t ev;
            count(&tasks);
#pragma omp task detach(ev)
            count(&ran);
            omp_fulfill_event(ev);
#pragma omp taskwait
            count(&taskwaits);
            bad += chain != 5 || x != 2;
            count(&tasks);
            count(&depend_tasks);
#pragma omp task depend(out : chain) shared(chain)
            chain = 10;
#pragma omp taskwait depend(in : chain)
            count(&taskwaits);
            bad += chain != 10;
        }
#pragma omp taskgroup
        {
            count(&taskgroups);
            for (int i = 0; i < 5; i++) {
                count(&tasks);
#pragma omp task
                count(&ran);
            }
        }
#pragma omp single
        {
            count(&singles);
            count(&taskloops);
#pragma omp taskloop grainsize(5)
            for (int i = 0; i < 50; i++)
                count(&iterations);
        }
    }
    /* worksharing: a dynamic loop of 10 chunks, three sections, single,
     * master and masked, a flush */
#pragma omp parallel num_threads(2)
    {
#pragma omp for schedule(dynamic, 10)
        for (int i = 0; i < 100; i++)
            if (i % 10 == 0)
                count(&chunks);
#pragma omp sections
        {
#pragma omp section
            count(&sections);
#pragma omp section
            count(&sections);
#pragma omp section
            count(&sections);
        }
#pragma omp single
        count(&singles);
#pragma omp master
        count(&masked);
#pragma omp masked filter(1)
        count(&masked);
#pragma omp flush
        count(&flushes);
    }
    /* cancel parallel (under OMP_CANCELLATION=true): thread 1 waits at the
     * barrier, thread 0 cancels; thread 1's barrier gives up */
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            if (omp_get_cancellation())
                count(&cancels);
#pragma omp cancel parallel
        }
#pragma omp barrier
    }
    omp_destroy_nest_lock(&nest);
    omp_destroy_lock(&lock);
    bad += sum != 4950 || sum2 != 9900 || ld != 2.0L || order_next != 10 ||
           atomic_load(&ran) != 31 || atomic_load(&iterations) != 50;
#ifdef __clang__
    int compiler = 1;
#else
    int compiler = 2;
#endif
    printf("CONSTRUCTS compiler=%d barriers=%ld reductions=%ld critical=%ld locks=%ld "
           "tested=%ld nested=%ld ordered=%ld atomics=%ld tasks=%ld depend_tasks=%ld "
           "taskwaits=%ld taskgroups=%ld taskloops=%ld masked=%ld sections=%ld singles=%ld "
           "chunks=%ld flushes=%ld cancels=%ld bad=%d\n",
           compiler, atomic_load(&barriers), atomic_load(&reductions), atomic_load(&critical),
           atomic_load(&locks), atomic_load(&tested), atomic_load(&nested),
           atomic_load(&ordered), atomic_load(&atomics), atomic_load(&tasks),
           atomic_load(&depend_tasks), atomic_load(&taskwaits), atomic_load(&taskgroups),
           atomic_load(&taskloops), atomic_load(&masked), atomic_load(&sections),
           atomic_load(&singles), atomic_load(&chunks), atomic_load(&flushes),
           atomic_load(&cancels), bad);
    return bad != 0;
}
