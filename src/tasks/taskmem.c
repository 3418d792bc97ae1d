/* taskmem.c: the memory of tasks. A task is made on one thread and very
 * often freed on another (the thread that ran it completes it, or its
 * last child's does), and the C library's aligned allocation takes an
 * arena lock for both, which two threads making and running tasks then
 * fight over. So tasks of up to BP_TASKMEM_BLOCK bytes come from blocks
 * that each thread keeps:
 *
 *   - a thread's cache has a private list, which only it pushes and pops
 *     (the blocks it freed itself, newest first: in its own cache), and a
 *     remote stack, onto which other threads push the blocks they free
 *     (a compare-and-swap on its head) and which the owner takes whole
 *     (one exchange) when its private list is empty: pushes by many, one
 *     taker of everything, so no block is seen twice (no ABA);
 *   - a thread gathers the blocks it frees of one other owner in a batch
 *     of up to BP_TASKMEM_BATCH (fewer when the next block it frees is
 *     another owner's, and at its exit), and pushes the batch at once:
 *     one push per block made the two threads of a producer and a
 *     consumer fight over the owner's stack head. The batch's first block
 *     is its carrier: its payload holds the array of the others, and the
 *     remote stack links carriers;
 *   - the owner gives out a carrier's blocks from that array, the carrier
 *     last. A list linked through the blocks themselves made every
 *     allocation read the next link from a line the freeing thread had
 *     written, a cache miss that the allocation waited for (for a master
 *     that makes tasks which another thread runs, 88% of the allocation's
 *     samples were at that read). The array is read in order, and the block given
 *     out next is prefetched for writing, so that its lines are on their
 *     way while the task given out now is made;
 *   - a block's first word names its cache;
 *   - when the owner exits, it frees its private blocks and the carriers
 *     it holds, and closes the remote stack by exchanging its head for
 *     BP_CLOSED, freeing what was there: a later push of its blocks finds
 *     the stack closed and frees the blocks itself. The cache stays on the
 *     list of all caches, for the next thread to reopen.
 * Larger tasks, and those aligned beyond a line, use the C library, as
 * every task does under ThreadSanitizer (under_tsan, below). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>

#include "../internal.h"

enum { BP_TASKMEM_BLOCK = 1024, BP_TASKMEM_KEEP = 2048, BP_TASKMEM_BATCH = 32 };

/* A block's first line: its owner, its link in a list, and (a carrier's)
 * the number of blocks in its array; a block of the C library's: no
 * owner, and what to free. The task lies after it; a carrier's array of
 * the other blocks of its batch lies there once its task is freed. */
struct block {
    struct bp_taskmem_cache *cache;
    struct block *next;
    int n;
};
_Static_assert(sizeof(struct block) <= 64, "a block's header fits its first line");
_Static_assert(64 + (BP_TASKMEM_BATCH - 1) * sizeof(struct block *) <= BP_TASKMEM_BLOCK,
               "a carrier's array fits its block");

static inline struct block **carried(struct block *carrier)
{
    return (struct block **)((char *)carrier + 64);
}

struct bp_taskmem_cache {
    struct block *private_list;
    int kept;                          /* blocks on it */
    struct block *carriers;            /* taken from remote, the next first */
    int carried_left;                  /* of the first's array; -1: not read */
    alignas(BP_LINE) struct block *_Atomic remote;
    struct bp_taskmem_cache *all_next; /* every cache, under caches_lock */
    _Atomic int open;                  /* owned by a running thread */
};

#define BP_CLOSED ((struct block *)1)

static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bp_taskmem_cache *caches;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static _Thread_local struct bp_taskmem_cache *mine;

/* Free a list of carriers (linked through next), each with its array. */
static void carriers_free(struct block *c)
{
    for (struct block *next; c != NULL; c = next) {
        next = c->next;
        struct block **more = carried(c);
        for (int i = 0; i < c->n; i++)
            free(more[i]);
        free(c);
    }
}

static void cache_close(void *arg)
{
    struct bp_taskmem_cache *c = arg;
    for (struct block *b = c->private_list, *next; b != NULL; b = next) {
        next = b->next;
        free(b);
    }
    c->private_list = NULL;
    c->kept = 0;
    /* the first carrier's blocks past carried_left are given out already */
    if (c->carriers != NULL && c->carried_left >= 0)
        c->carriers->n = c->carried_left;
    carriers_free(c->carriers);
    c->carriers = NULL;
    /* acquire: the freeing threads' pushes are complete */
    struct block *b = atomic_exchange_explicit(&c->remote, BP_CLOSED, memory_order_acquire);
    carriers_free(b != BP_CLOSED ? b : NULL);
    atomic_store_explicit(&c->open, 0, memory_order_release);
    mine = NULL;
}

/* A thread's freed blocks of one other thread's, on their way back: the
 * carrier, and n of them in its array. */
struct batch {
    struct bp_taskmem_cache *owner;
    struct block *carrier;
};
static _Thread_local struct batch batch;
static _Thread_local int batch_key_set;
static pthread_key_t batch_key;

/* Push the batch onto its owner's remote stack (or free it, the owner gone). */
static void batch_flush(struct batch *bt)
{
    struct bp_taskmem_cache *c = bt->owner;
    if (c == NULL)
        return;
    struct block *carrier = bt->carrier;
    struct block *head = atomic_load_explicit(&c->remote, memory_order_relaxed);
    for (;;) {
        if (head == BP_CLOSED) { /* its owner exited */
            carrier->next = NULL;
            carriers_free(carrier);
            break;
        }
        carrier->next = head;
        /* release: the blocks' contents and the array before they are taken */
        if (atomic_compare_exchange_weak_explicit(&c->remote, &head, carrier,
                                                  memory_order_release, memory_order_relaxed))
            break;
    }
    *bt = (struct batch){0};
}

static void batch_exit(void *arg) { batch_flush(arg); }

static void make_key(void)
{
    (void)pthread_key_create(&exit_key, cache_close);
    (void)pthread_key_create(&batch_key, batch_exit);
}

void bp_taskmem_fork_child(void)
{
    /* a thread of the parent may have held it: the child has one thread */
    pthread_mutex_init(&caches_lock, NULL);
}

/* The calling thread's cache: a closed one reopened, or a new one. */
static struct bp_taskmem_cache *cache_of_thread(void)
{
    if (mine != NULL)
        return mine;
    pthread_once(&key_once, make_key);
    pthread_mutex_lock(&caches_lock);
    struct bp_taskmem_cache *c = caches;
    while (c != NULL && atomic_load_explicit(&c->open, memory_order_acquire))
        c = c->all_next;
    if (c == NULL) {
        void *mem = NULL;
        if (posix_memalign(&mem, BP_LINE, sizeof *c) != 0) {
            pthread_mutex_unlock(&caches_lock);
            return NULL;
        }
        c = mem;
        c->all_next = caches;
        caches = c;
    }
    c->private_list = NULL;
    c->kept = 0;
    c->carriers = NULL;
    c->carried_left = -1;
    atomic_store_explicit(&c->remote, NULL, memory_order_relaxed); /* reopened */
    atomic_store_explicit(&c->open, 1, memory_order_relaxed);
    pthread_mutex_unlock(&caches_lock);
    (void)pthread_setspecific(exit_key, c);
    mine = c;
    return c;
}

/* Ask for the lines of the block given out next, for writing: the task
 * made in it will write them, and another thread may hold them. */
static inline void prefetch_block(const struct block *b)
{
    for (size_t off = 64; off < 64 + BP_TASK_HEADER + 64; off += 64)
        __builtin_prefetch((const char *)b + off, 1, 3);
}

/* A block of the carriers taken from the remote stack: the first's array
 * from its end, then the carrier itself; NULL if none is left. */
static struct block *carried_take(struct bp_taskmem_cache *c)
{
    struct block *cr = c->carriers;
    if (cr == NULL) {
        /* relaxed: a look; the exchange acquires */
        if (atomic_load_explicit(&c->remote, memory_order_relaxed) == NULL)
            return NULL;
        /* acquire: the pushers' writes to the blocks and their arrays */
        cr = c->carriers = atomic_exchange_explicit(&c->remote, NULL, memory_order_acquire);
        c->carried_left = -1;
    }
    if (c->carried_left < 0)
        c->carried_left = cr->n;
    if (c->carried_left == 0) {
        c->carriers = cr->next;
        c->carried_left = -1;
        if (cr->next != NULL)
            prefetch_block(cr->next);
        return cr;
    }
    struct block **more = carried(cr);
    int i = --c->carried_left;
    prefetch_block(i > 0 ? more[i - 1] : cr);
    return more[i];
}

/* Under ThreadSanitizer (a program built with -fsanitize=thread, with or
 * without a tool such as Archer) every task comes from the C library, whose
 * allocator TSan replaces: it knows a block freed by one thread and given
 * out again to another as new memory. A block that the caches above move
 * from thread to thread would look to it, since it does not see this
 * library's own synchronization, like memory that two threads wrote with
 * nothing ordering them: a false report on the program's task data.
 * Looked up once (relaxed: every thread finds the same answer). */
static int under_tsan(void)
{
    static _Atomic int known = -1;
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        v = dlsym(RTLD_DEFAULT, "__tsan_init") != NULL;
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v;
}

void *bp_taskmem_alloc(size_t size, size_t align)
{
    if (size + 64 > BP_TASKMEM_BLOCK || align > 64 || __builtin_expect(under_tsan(), 0)) {
        void *mem = NULL;
        size_t a = align > 64 ? align : 64;
        if (posix_memalign(&mem, a, size + a) != 0)
            return NULL;
        char *p = (char *)mem + a;
        struct block *b = (struct block *)(p - 64); /* within the first a bytes */
        b->cache = NULL;
        b->next = mem;
        return p;
    }
    struct bp_taskmem_cache *c = cache_of_thread();
    struct block *b = NULL;
    if (c != NULL) {
        b = c->private_list;
        if (b != NULL) {
            c->private_list = b->next;
            c->kept--;
        } else {
            b = carried_take(c);
        }
    }
    if (b != NULL)
        return (char *)b + 64;
    void *mem = NULL;
    if (posix_memalign(&mem, 64, BP_TASKMEM_BLOCK) != 0)
        return NULL;
    b = mem;
    b->cache = c;
    b->next = mem; /* no cache (out of memory): the C library's, freed so */
    return (char *)b + 64;
}

void bp_taskmem_free(void *p)
{
    if (p == NULL)
        return;
    /* the block's header is a line below: see bp_taskmem_alloc */
    struct block *b = (struct block *)((char *)p - 64);
    struct bp_taskmem_cache *c = b->cache;
    if (c == NULL) { /* the C library's */
        free(b->next);
        return;
    }
    if (c == mine) {
        if (c->kept >= BP_TASKMEM_KEEP) {
            free(b);
            return;
        }
        b->next = c->private_list;
        c->private_list = b;
        c->kept++;
        return;
    }
    /* another thread's block: batched, one push per BP_TASKMEM_BATCH blocks
     * of one owner (a push per block fought over the owner's stack) */
    struct batch *bt = &batch;
    if (bt->owner != c || bt->carrier->n == BP_TASKMEM_BATCH - 1)
        batch_flush(bt);
    if (bt->owner == NULL) {
        if (!batch_key_set) { /* flushed when this thread exits */
            pthread_once(&key_once, make_key);
            (void)pthread_setspecific(batch_key, bt);
            batch_key_set = 1;
        }
        bt->owner = c;
        bt->carrier = b;
        b->n = 0;
        return;
    }
    carried(bt->carrier)[bt->carrier->n++] = b;
}
