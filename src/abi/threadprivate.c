/* threadprivate.c: threadprivate variables without native TLS, the way
 * libomp's ABI has them (clang -fno-openmp-use-tls, and compilers for
 * targets without TLS; gcc always uses TLS and never calls these). Every
 * reference to such a variable calls __kmpc_threadprivate_cached(data,
 * size, cache), which returns the calling thread's copy of the variable
 * whose original is at `data`; a C++ variable with a constructor or a
 * destructor is first registered (__kmpc_threadprivate_register, from a
 * static initialiser).
 *
 * Whose copy is the original, as in libomp (with its default of a copy
 * for every thread it did not start, KMP_FOREIGN_THREADS_THREADPRIVATE):
 * the initial thread (the process's first) uses the original, in a region
 * or not, and every other thread, a worker or another application thread,
 * a copy of its own, made at its first reference and kept for the
 * thread's life, so that its value persists from one region to the next
 * on the same thread (the pool keeps a team's threads in their places
 * between regions).
 * A copy starts as the registered constructor makes it, else with the
 * bytes the original had when the variable was first referenced (its
 * static initialiser: every reference goes through here, so nothing has
 * changed it before), as libomp's snapshot does; copyin is the compiled
 * code's, from the primary thread's copy.
 *
 * Finding a copy: the compiler gives each variable a pointer-sized cache
 * word, zero at start, that only the runtime reads. Here it holds the
 * variable's record (struct tp_var), set once under a lock; the record
 * gives the variable's index in each thread's table of copies, a
 * thread-local array grown on demand. The fast path is two loads and an
 * index, no lock. A thread's copies are destroyed (the registered
 * destructor) and freed when the thread exits, by a pthread key's
 * destructor. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi.h"
#include "../internal.h"
#include "kmp.h"

struct tp_var {
    void *data;          /* the original */
    size_t size;         /* bytes of one copy */
    int index;           /* in each thread's table of copies */
    kmpc_ctor ctor;      /* registered: how a copy is made and destroyed */
    kmpc_dtor dtor;
    kmpc_ctor_vec ctor_vec; /* an array of vlen objects */
    kmpc_dtor_vec dtor_vec;
    size_t vlen;
    void *pod_init;      /* else: the original's first bytes; NULL: zeros */
    int pod_taken;
    struct tp_var *next;
};

static pthread_mutex_t vars_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tp_var *vars;  /* under vars_lock */
static int nvars;            /* under vars_lock: indices handed out */
static pthread_key_t copies_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* The calling thread's copies, by variable index; NULL: none yet. */
struct tp_table {
    int cap;
    void **copy;
    struct tp_var **var; /* whose each copy is, for its destructor */
};
static __thread struct tp_table table;

/* Under vars_lock: the record of the variable at data, made if new. */
static struct tp_var *var_of_locked(void *data, size_t size)
{
    for (struct tp_var *v = vars; v != NULL; v = v->next)
        if (v->data == data) {
            if (v->size == 0)
                v->size = size; /* registered before its first reference */
            return v;
        }
    struct tp_var *v = calloc(1, sizeof *v);
    if (v == NULL)
        bp_fatal("threadprivate: out of memory");
    v->data = data;
    v->size = size;
    v->index = nvars++;
    v->next = vars;
    vars = v;
    return v;
}

/* Under vars_lock: a variable without a constructor notes its original's
 * bytes at its first reference, what every copy starts from. */
static void take_pod_locked(struct tp_var *v)
{
    if (v->pod_taken || v->ctor != NULL || v->ctor_vec != NULL)
        return;
    v->pod_taken = 1;
    const unsigned char *p = v->data;
    size_t i = 0;
    while (i < v->size && p[i] == 0)
        i++;
    if (i == v->size)
        return; /* all zeros */
    v->pod_init = malloc(v->size);
    if (v->pod_init == NULL)
        bp_fatal("threadprivate: %zu bytes: out of memory", v->size);
    memcpy(v->pod_init, v->data, v->size);
}

static void destroy_copies(void *arg)
{
    struct tp_table *tb = arg;
    for (int i = tb->cap - 1; i >= 0; i--) {
        void *c = tb->copy[i];
        if (c == NULL)
            continue;
        const struct tp_var *v = tb->var[i];
        if (v->dtor_vec != NULL)
            v->dtor_vec(c, v->vlen);
        else if (v->dtor != NULL)
            v->dtor(c);
        free(c);
    }
    free(tb->copy);
    free(tb->var);
    tb->copy = NULL;
    tb->var = NULL;
    tb->cap = 0;
}

static void make_key(void)
{
    if (pthread_key_create(&copies_key, destroy_copies) != 0)
        bp_fatal("threadprivate: no thread-specific key left");
}

/* The calling thread's copy of v, made at its first reference. */
static void *copy_of(struct tp_var *v)
{
    struct tp_table *tb = &table;
    if (v->index < tb->cap && tb->copy[v->index] != NULL)
        return tb->copy[v->index];
    if (v->index >= tb->cap) {
        int cap = tb->cap ? tb->cap : 8;
        while (cap <= v->index)
            cap *= 2;
        void **copy = realloc(tb->copy, sizeof *copy * (size_t)cap);
        struct tp_var **var = copy != NULL ? realloc(tb->var, sizeof *var * (size_t)cap) : NULL;
        if (copy == NULL || var == NULL)
            bp_fatal("threadprivate: a table of %d copies: out of memory", cap);
        memset(copy + tb->cap, 0, sizeof *copy * (size_t)(cap - tb->cap));
        memset(var + tb->cap, 0, sizeof *var * (size_t)(cap - tb->cap));
        if (tb->cap == 0) { /* the thread's first copy: destroyed at its exit */
            pthread_once(&key_once, make_key);
            pthread_setspecific(copies_key, tb);
        }
        tb->copy = copy;
        tb->var = var;
        tb->cap = cap;
    }
    size_t bytes = v->size ? v->size : 1;
    void *c = NULL;
    if (posix_memalign(&c, BP_LINE, (bytes + BP_LINE - 1) / BP_LINE * BP_LINE) != 0)
        bp_fatal("threadprivate: a copy of %zu bytes: out of memory", v->size);
    if (v->ctor_vec != NULL)
        v->ctor_vec(c, v->vlen);
    else if (v->ctor != NULL)
        v->ctor(c);
    else if (v->pod_init != NULL)
        memcpy(c, v->pod_init, v->size);
    else
        memset(c, 0, bytes);
    tb->copy[v->index] = c;
    tb->var[v->index] = v;
    return c;
}

/* Is the calling thread the process's first? Asked once per thread. */
static int initial_thread(void)
{
    static __thread int initial = -1;
    if (__builtin_expect(initial < 0, 0))
        initial = syscall(SYS_gettid) == getpid();
    return initial;
}

/* The calling thread's instance of v (see the top of the file). */
static void *instance(struct tp_var *v) { return initial_thread() ? v->data : copy_of(v); }

static struct tp_var *var_of(void *data, size_t size)
{
    pthread_mutex_lock(&vars_lock);
    struct tp_var *v = var_of_locked(data, size);
    take_pod_locked(v);
    pthread_mutex_unlock(&vars_lock);
    return v;
}

BP_API void *__kmpc_threadprivate_cached(ident_t *loc, int32_t gtid, void *data, size_t size,
                                         void ***cache)
{
    (void)loc, (void)gtid;
    _Atomic(struct tp_var *) *word = (_Atomic(struct tp_var *) *)cache;
    /* acquire: pairs with the release below, the record complete */
    struct tp_var *v = atomic_load_explicit(word, memory_order_acquire);
    if (__builtin_expect(v == NULL, 0)) {
        v = var_of(data, size);
        atomic_store_explicit(word, v, memory_order_release);
    }
    return instance(v);
}

/* The form without a cache (older compilers): the record found by address. */
BP_API void *__kmpc_threadprivate(ident_t *loc, int32_t gtid, void *data, size_t size)
{
    (void)loc, (void)gtid;
    return instance(var_of(data, size));
}

BP_API void __kmpc_threadprivate_register(ident_t *loc, void *data, kmpc_ctor ctor,
                                          kmpc_cctor cctor, kmpc_dtor dtor)
{
    (void)loc;
    if (cctor != NULL)
        bp_warn("__kmpc_threadprivate_register: a copy constructor is not used; copies are "
                "made by the constructor");
    pthread_mutex_lock(&vars_lock);
    struct tp_var *v = var_of_locked(data, 0);
    v->ctor = ctor;
    v->dtor = dtor;
    pthread_mutex_unlock(&vars_lock);
}

BP_API void __kmpc_threadprivate_register_vec(ident_t *loc, void *data, kmpc_ctor_vec ctor,
                                              kmpc_cctor_vec cctor, kmpc_dtor_vec dtor,
                                              size_t vector_length)
{
    (void)loc;
    if (cctor != NULL)
        bp_warn("__kmpc_threadprivate_register_vec: a copy constructor is not used; copies "
                "are made by the constructor");
    pthread_mutex_lock(&vars_lock);
    struct tp_var *v = var_of_locked(data, 0);
    v->ctor_vec = ctor;
    v->dtor_vec = dtor;
    v->vlen = vector_length;
    pthread_mutex_unlock(&vars_lock);
}
