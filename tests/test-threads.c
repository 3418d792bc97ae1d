/* test-threads.c: two application threads fork regions at the same time.
 * 1. The interleaving push A, push B, fork A, fork B is forced with a step
 *    counter: each region must get the count its own thread pushed.
 * 2. Loops lowered from MLIR for 2 and for 3 threads run 2000 times each,
 *    concurrently: every call sees its own team size, every iteration once.
 * Needs a pool of at least 3 threads: CTest sets BUDDY_THREAD_POOL_THREADS=4
 * and the test-only BUDDY_THREAD_POOL_OVERSUBSCRIBE=1 for 2-CPU machines. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "buddypool.h"
#include "check.h"

typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);
void __kmpc_push_num_threads(void *loc, int32_t gtid, int32_t num_threads);
int32_t __kmpc_global_thread_num(void *loc);
void __kmpc_fork_call(void *loc, int32_t argc, kmpc_micro fn, ...);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
void _mlir_ciface_loop_team2(int64_t n);
void _mlir_ciface_loop_team3(int64_t n);

enum { ITERS = 96 };
static int calls = 2000;

/* ---- 1. forced interleaving ---- */
static atomic_int step;

static void wait_step(int s)
{
    while (atomic_load(&step) != s)
        sched_yield();
}

static void report_team(int32_t *gtid, int32_t *btid, int *team)
{
    if (omp_get_thread_num() == 0)
        *team = omp_get_num_threads();
}

struct forced {
    int me;      /* 0: thread A, 1: thread B */
    int pushed;  /* 2 or 3 */
    int got;
};

static void *forced_thread(void *arg)
{
    struct forced *f = arg;
    int32_t gtid = __kmpc_global_thread_num(NULL);
    wait_step(f->me);             /* step 0: A pushes, step 1: B pushes */
    __kmpc_push_num_threads(NULL, gtid, f->pushed);
    atomic_fetch_add(&step, 1);
    wait_step(2 + f->me);         /* step 2: A forks, step 3: B forks */
    __kmpc_fork_call(NULL, 1, (kmpc_micro)report_team, &f->got);
    atomic_fetch_add(&step, 1);
    return NULL;
}

/* ---- 2. concurrent MLIR loops ---- */
struct counts {
    _Atomic int hits[ITERS];
    _Atomic int wrong_team;
};
static struct counts c2, c3;

void note_team2(int64_t i)
{
    atomic_fetch_add(&c2.hits[i], 1);
    if (omp_get_num_threads() != 2)
        atomic_fetch_add(&c2.wrong_team, 1);
}

void note_team3(int64_t i)
{
    atomic_fetch_add(&c3.hits[i], 1);
    if (omp_get_num_threads() != 3)
        atomic_fetch_add(&c3.wrong_team, 1);
}

struct runner {
    void (*loop)(int64_t);
    struct counts *c;
};

static void *run_loops(void *arg)
{
    struct runner *r = arg;
    for (int k = 0; k < calls; k++) {
        r->loop(ITERS);
        for (int i = 0; i < ITERS; i++) {
            CHECK_EQ(atomic_load(&r->c->hits[i]), 1);
            atomic_store(&r->c->hits[i], 0);
        }
        CHECK_EQ(atomic_load(&r->c->wrong_team), 0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        calls = atoi(argv[1]);
    CHECK_GE(buddypool_max_threads(), 3);

    struct forced a = {0, 2, 0}, b = {1, 3, 0};
    pthread_t ta, tb;
    CHECK_EQ(pthread_create(&ta, NULL, forced_thread, &a), 0);
    CHECK_EQ(pthread_create(&tb, NULL, forced_thread, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK_EQ(a.got, 2);
    CHECK_EQ(b.got, 3);

    struct runner r2 = {_mlir_ciface_loop_team2, &c2}, r3 = {_mlir_ciface_loop_team3, &c3};
    CHECK_EQ(pthread_create(&ta, NULL, run_loops, &r2), 0);
    CHECK_EQ(pthread_create(&tb, NULL, run_loops, &r3), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    printf("test-threads: forced interleaving got teams %d and %d; %d + %d concurrent "
           "MLIR regions right\n", a.got, b.got, calls, calls);
    return 0;
}
