/* peer.c: libgomp loaded beside a preloaded buddypool, its nthreads-var
 * kept in step with buddypool's.
 *
 * Preloaded (LD_PRELOAD, `buddypool run`) into a process whose libraries
 * need libgomp, buddypool answers every OpenMP call those libraries make,
 * but libgomp is loaded all the same: it is their dependency. Whoever calls
 * libgomp by its handle reaches libgomp's own ICVs. Python's threadpoolctl
 * (used by joblib, scikit-learn, and by hand) does exactly that: it finds
 * the OpenMP runtimes among the loaded objects by file name (libgomp*,
 * libomp*, libiomp*) and calls each one's omp_set_num_threads and
 * omp_get_max_threads through ctypes, whose dlsym on the runtime's handle
 * finds the runtime's own definitions. A limit set so would change nothing
 * that runs, and threadpool_info() would show libgomp's figure, not the
 * team buddypool gives. So each libgomp beside buddypool (the system's, and
 * vendored copies such as libgomp-<hash>.so of Python wheels) is a peer
 * whose nthreads-var buddypool keeps equal to its own, per thread (both
 * runtimes keep it per thread: the calling thread's task's):
 *   - buddypool's changes (omp_set_num_threads) are set in every peer;
 *   - a peer's value that changed since buddypool last saw it (someone
 *     called the peer directly) becomes buddypool's: looked at by
 *     omp_get_max_threads, and by a fork that asks for no size;
 *   - a thread's first look sets the peers to buddypool's value, so that
 *     threadpool_info() shows the team buddypool would really give (under
 *     a CPU quota, fewer than libgomp's count of the CPUs), unless the
 *     peer's value on that thread is no longer the one it had when found:
 *     a limit set there before buddypool first looked is taken too.
 * Only outside any region (level 0), where an application thread runs:
 * a region's implicit tasks are buddypool's alone.
 *
 * Finding the peers. dl_iterate_phdr reports how many objects were ever
 * loaded (dlpi_adds); a walk that sees the count unchanged stops at the
 * first object. When it changed, the objects named as OpenMP runtimes
 * (elfsyms.c) that define omp_get_max_threads and omp_set_num_threads
 * themselves (buddypool's drop-in libgomp.so.1 defines nothing: it is
 * buddypool) are peers, their entry points read from their symbol tables.
 * A peer is then pinned with dlopen(RTLD_NOLOAD | RTLD_NODELETE), outside
 * the walk, so its code stays mapped for as long as buddypool may call it.
 * A thread walks at its first omp_get_max_threads call, at every 256th
 * after, and at every omp_set_num_threads, unless another thread is
 * walking (a try-lock: see find); in a Python process, numpy's
 * OpenBLAS asks omp_get_max_threads while it is being loaded, libgomp
 * already mapped, so the peer is known before any limit is set.
 *
 * libomp and Intel's libiomp5 are not kept in step: their entry points
 * start their runtime (threads, binding) when first called on a thread,
 * which a process running on buddypool must not set off. A Python
 * process that has one loaded beside buddypool is told so once, with the
 * fix: buddypool's drop-in libraries, whose file names threadpoolctl finds
 * (docs/deploying.md). */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "abi.h"
#include "elfsyms.h"
#include "../internal.h"

enum { MAX_PEERS = 8, PROBE_EVERY = 256 };

struct peer {
    int (*get)(void);  /* its omp_get_max_threads */
    void (*set)(int);  /* its omp_set_num_threads */
    uintptr_t base;    /* its load address: which object it is */
    int initial;       /* its value when found, on a thread that had set none */
};

static struct peer peers[MAX_PEERS];
/* Peers found: entries 0..n-1 are set before n is stored (release). */
_Atomic int bp_peers_known;
static pthread_mutex_t find_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long seen_adds; /* dlpi_adds at the last full walk; find_lock */

/* Per thread: each peer's nthreads-var as this thread last saw or set it
 * (0: not looked at yet), and its calls since the last walk. */
static _Thread_local int seen[MAX_PEERS];
static _Thread_local unsigned looks;

struct found {
    struct peer p[MAX_PEERS];
    char path[MAX_PEERS][PATH_MAX];
    int n;
    int other;               /* a libomp or libiomp5 beside buddypool */
    char other_path[PATH_MAX];
};

struct lookup {
    void *get, *set;
    uintptr_t base;
};

static int lookup_one(const char *name, const ElfW(Sym) *sym, void *arg)
{
    struct lookup *l = arg;
    if (sym->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym->st_info) != STT_FUNC)
        return 0;
    if (strcmp(name, "omp_get_max_threads") == 0 && l->get == NULL)
        l->get = (void *)(l->base + sym->st_value);
    else if (strcmp(name, "omp_set_num_threads") == 0 && l->set == NULL)
        l->set = (void *)(l->base + sym->st_value);
    return l->get != NULL && l->set != NULL;
}

static int is_gomp(const char *path)
{
    const char *base = strrchr(path, '/');
    return strncmp(base != NULL ? base + 1 : path, "libgomp", 7) == 0;
}

/* dl_iterate_phdr's callback: stop at once when nothing was loaded since
 * the last walk; else note every OpenMP runtime that is not buddypool. */
static int walk_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct found *f = arg;
    if (f->n < 0) { /* the first object: has anything been loaded since? */
        if (size >= offsetof(struct dl_phdr_info, dlpi_subs) && info->dlpi_adds == seen_adds)
            return 1;
        if (size >= offsetof(struct dl_phdr_info, dlpi_subs))
            seen_adds = info->dlpi_adds;
        f->n = 0;
    }
    if (info->dlpi_name == NULL || !bp_elf_openmp_runtime(info->dlpi_name) ||
        bp_elf_holds(info, (const void *)walk_one) || f->n == MAX_PEERS)
        return 0;
    struct lookup l = {NULL, NULL, info->dlpi_addr};
    bp_elf_symbols(info, lookup_one, &l);
    if (l.get == NULL || l.set == NULL) /* buddypool's drop-in, or not a runtime */
        return 0;
    if (!is_gomp(info->dlpi_name)) {
        if (!f->other)
            strncpy(f->other_path, info->dlpi_name, sizeof f->other_path - 1);
        f->other = 1;
        return 0;
    }
    f->p[f->n] = (struct peer){(int (*)(void))l.get, (void (*)(int))l.set, info->dlpi_addr, 0};
    strncpy(f->path[f->n], info->dlpi_name, PATH_MAX - 1);
    f->n++;
    return 0;
}

/* Walk the loaded objects if any were loaded since the last walk; add the
 * new peers. */
/* A child of fork() gets the lock free, whatever another thread of its
 * parent was doing. */
static void find_lock_child(void) { pthread_mutex_init(&find_lock, NULL); }
static void register_atfork(void) { pthread_atfork(NULL, NULL, find_lock_child); }

static void find(void)
{
    static struct found f; /* large: find_lock guards it */
    static _Atomic int warned;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_atfork);
    /* Another thread walking now finds what this one would. Never waiting
     * here keeps a thread that holds the dynamic linker's lock (a library's
     * constructor asking omp_get_max_threads inside dlopen) from waiting
     * for one that waits for that lock (the dlopen that pins a peer). */
    if (pthread_mutex_trylock(&find_lock) != 0)
        return;
    f.n = -1;
    f.other = 0;
    memset(f.other_path, 0, sizeof f.other_path);
    memset(f.path, 0, sizeof f.path);
    dl_iterate_phdr(walk_one, &f);
    int known = atomic_load_explicit(&bp_peers_known, memory_order_relaxed);
    for (int i = 0; i < f.n && known < MAX_PEERS; i++) {
        int dup = 0;
        for (int k = 0; k < known; k++)
            dup |= peers[k].base == f.p[i].base;
        /* pinned: its code stays mapped while buddypool may call it */
        if (dup || dlopen(f.path[i], RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) == NULL)
            continue;
        f.p[i].initial = f.p[i].get();
        peers[known++] = f.p[i];
    }
    /* release: the entries before the count that says they are there */
    atomic_store_explicit(&bp_peers_known, known, memory_order_release);
    int other = f.other;
    pthread_mutex_unlock(&find_lock);
    /* relaxed: only the one warning depends on it */
    if (other && bp_process_is_python() && atomic_exchange_explicit(&warned, 1, memory_order_relaxed) == 0)
        bp_warn("%s is loaded beside the preloaded buddypool: threadpoolctl (joblib, "
                "scikit-learn) finds it by its file name and sets its thread count, which "
                "buddypool does not read; to let such limits reach buddypool, run in drop-in "
                "mode (LD_LIBRARY_PATH=<buddypool's dropin directory>, see "
                "docs/deploying.md); this is said once", f.other_path);
}

/* The calling thread's nthreads-var as omp_get_max_threads gives it. */
static int own_value(struct bp_thread *t)
{
    int n = bp_icv(t)->nthreads;
    return n > 0 ? n : bp_default_team();
}

void bp_peers_sync(struct bp_thread *t)
{
    /* acquire: pairs with find's release; the entries below it are set */
    int known = atomic_load_explicit(&bp_peers_known, memory_order_acquire);
    int adopted = 0;
    for (int i = 0; i < known; i++) {
        int v = peers[i].get();
        if (seen[i] == 0 && v == peers[i].initial) {
            /* this thread's first look, the peer's value untouched: the
             * peer takes ours */
            int mine = own_value(t);
            if (v != mine)
                peers[i].set(mine);
            seen[i] = mine;
        } else if (v != seen[i] && v > 0) {
            /* set behind our back (before this thread's first look too):
             * ours takes it */
            bp_icv_set(t)->nthreads = v;
            seen[i] = v;
            adopted = v;
        }
    }
    for (int i = 0; adopted > 0 && i < known; i++)
        if (seen[i] != adopted) { /* the other peers follow */
            peers[i].set(adopted);
            seen[i] = adopted;
        }
}

void bp_peers_look(struct bp_thread *t)
{
    if (t->level != 0)
        return;
    if (looks++ % PROBE_EVERY == 0)
        find();
    /* relaxed: a hint; bp_peers_sync acquires */
    if (atomic_load_explicit(&bp_peers_known, memory_order_relaxed) != 0)
        bp_peers_sync(t);
}

void bp_peers_set(struct bp_thread *t, int n)
{
    if (t->level != 0)
        return;
    find();
    /* acquire: pairs with find's release */
    int known = atomic_load_explicit(&bp_peers_known, memory_order_acquire);
    for (int i = 0; i < known; i++) {
        if (peers[i].get() != n)
            peers[i].set(n);
        seen[i] = n;
    }
}
