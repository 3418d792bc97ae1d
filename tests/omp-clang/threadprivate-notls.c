/* threadprivate-notls.c: threadprivate variables without native TLS (built
 * by clang with -fnoopenmp-use-tls: every reference calls
 * __kmpc_threadprivate_cached), on buddypool and on libomp, which validates
 * the test. The initial thread's references are the original; each other
 * thread, in a region or not, has a copy of its own that starts with the variable's static initial value (or
 * as its registered constructor makes it: __kmpc_threadprivate_register,
 * called here as clang calls it for a C++ object), persists between
 * regions of the same team and takes copyin's value. Run at 1, 2 and 4
 * threads. */
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "../gomp/gomp-check.h"

enum { MAXT = 64, NARR = 33 };

static int counter = 7;
PRAGMA(omp threadprivate(counter))
static double arr[NARR] = {1.5, 2.5, 3.5};
PRAGMA(omp threadprivate(arr))
static long zeros[4];
PRAGMA(omp threadprivate(zeros))
struct obj {
    int v, magic;
};
struct obj tp_obj;
PRAGMA(omp threadprivate(tp_obj))
/* the same object, not threadprivate here: the original's own address,
 * which clang's registration passes */
extern struct obj tp_obj_raw __asm__("tp_obj");
#define o tp_obj

/* What clang passes for a C++ object: a constructor that builds it in
 * place and returns it, and a destructor. */
static int constructed;
static void *obj_ctor(void *p)
{
    struct obj *x = p;
    x->v = 42;
    x->magic = 0xabc;
    __atomic_fetch_add(&constructed, 1, __ATOMIC_RELAXED);
    return p;
}
static void obj_dtor(void *p) { memset(p, 0, sizeof(struct obj)); }

struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
};
void __kmpc_threadprivate_register(struct ident *loc, void *data, void *(*ctor)(void *),
                                   void *cctor, void (*dtor)(void *));
int32_t __kmpc_global_thread_num(struct ident *loc);
static struct ident loc = {0, 2, 0, 0, ";threadprivate-notls.c;register;0;0;;"};

/* As clang registers a C++ threadprivate object, before any reference:
 * the original built, the runtime started, the object registered. */
__attribute__((constructor)) static void register_obj(void)
{
    obj_ctor(&tp_obj_raw);
    __kmpc_global_thread_num(&loc);
    __kmpc_threadprivate_register(&loc, &tp_obj_raw, obj_ctor, NULL, obj_dtor);
}

static void *addr[MAXT];

/* Another application thread has a copy of its own, outside a region too,
 * and keeps it as thread 0 of the regions it forks. */
static void *other_thread(void *arg)
{
    (void)arg;
    static int *serial, *forked;
    serial = &counter;
    EXPECT_EQ(counter, 7, "another thread's copy starts with the initial value");
    counter = 5;
    int seen = 0;
    PRAGMA(omp parallel num_threads(2))
    {
        if (omp_get_thread_num() == 0) {
            forked = &counter;
            seen = counter;
        }
    }
    EXPECT_EQ(serial != addr[MAXT - 1], 1, "another thread: a copy of its own");
    EXPECT_EQ(forked == serial, 1, "another thread's region: its thread 0 keeps its copy");
    EXPECT_EQ(seen, 5, "another thread's region: its thread 0's value");
    return NULL;
}

int main(void)
{
    int team = check_team_size("threadprivate-notls");
    int *original = &counter;
    addr[MAXT - 1] = original;
    EXPECT_EQ(counter, 7, "the original's initial value");
    EXPECT_EQ(o.v, 42, "the registered original");
    int workers = team - 1;
    EXPECT_EQ(constructed, 1, "constructed before any region");

    /* the first region: every thread's copy starts with the initial values */
    int bad = 0;
    PRAGMA(omp parallel reduction(+ : bad))
    {
        int me = omp_get_thread_num();
        addr[me] = &counter;
        bad += counter != 7;
        bad += o.v != 42 || o.magic != 0xabc;
        for (int i = 0; i < NARR; i++)
            bad += arr[i] != (i < 3 ? i + 1.5 : 0.0);
        for (int i = 0; i < 4; i++)
            bad += zeros[i] != 0;
        counter += me; /* each its own */
        o.v += me;
    }
    EXPECT_EQ(bad, 0, "copies start with the initial values");
    EXPECT_EQ(addr[0] == original, 1, "the initial thread's copy is the original");
    for (int i = 0; i < team; i++)
        for (int j = 0; j < i; j++)
            EXPECT_EQ(addr[i] != addr[j], 1, "each thread has a copy of its own");
    EXPECT_EQ(constructed, 1 + workers, "one constructed copy per other thread");
    EXPECT_EQ(counter, 7, "the initial thread's value");

    /* changed outside: the original only; the copies persist */
    counter = 9;
    arr[0] = 99;
    PRAGMA(omp parallel reduction(+ : bad))
    {
        int me = omp_get_thread_num();
        bad += addr[me] != &counter;
        bad += counter != (me == 0 ? 9 : 7 + me);
        bad += arr[0] != (me == 0 ? 99 : 1.5);
        bad += o.v != 42 + me;
    }
    EXPECT_EQ(bad, 0, "copies persist from one region to the next");

    /* copyin: every copy takes the initial thread's value */
    PRAGMA(omp parallel copyin(counter) reduction(+ : bad))
    {
        bad += counter != 9;
        counter = 100 + omp_get_thread_num();
    }
    EXPECT_EQ(bad, 0, "copyin");
    PRAGMA(omp parallel reduction(+ : bad))
    bad += counter != 100 + omp_get_thread_num();
    EXPECT_EQ(bad, 0, "values after copyin persist");

    /* an inactive region: the original */
    int *inner = NULL;
    PRAGMA(omp parallel num_threads(1))
    inner = &counter;
    EXPECT_EQ(inner == original, 1, "an inactive region: the original");
    EXPECT_EQ(constructed, 1 + workers, "no copy made twice");

    pthread_t th;
    if (pthread_create(&th, NULL, other_thread, NULL) != 0 || pthread_join(th, NULL) != 0)
        EXPECT_EQ(0, 1, "pthread_create");
    return check_summary("threadprivate-notls");
}
