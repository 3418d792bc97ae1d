/* taskmem.c: the memory of tasks. A task is made on one thread and very
 * often freed on another (the thread that ran it completes it, or its
 * last child's does), and the C library's aligned allocation takes an
 * arena lock for both, which two threads making and running tasks then
 * fight over. So tasks of up to BP_TASKMEM_BLOCK bytes come from blocks
 * that each thread keeps:
 *
 *   - a thread's cache has a private list, which only it pushes and pops,
 *     and a remote list, onto which other threads push the blocks they free
 *     (a compare-and-swap on its head) and which the owner takes whole (one
 *     exchange) when its private list is empty: pushes by many, one taker
 *     of everything, so no block is seen twice (no ABA);
 *   - a thread gathers the blocks it frees of one other owner in a batch
 *     and pushes BP_TASKMEM_BATCH of them at once (or fewer, when the next
 *     block it frees is another owner's, and at its exit): one push per
 *     block made the two threads of a producer and a consumer fight over
 *     the owner's list head;
 *   - a block's first word names its cache;
 *   - when the owner exits, it frees its private blocks and closes the
 *     remote list by exchanging its head for BP_CLOSED, freeing what was
 *     there: a later free of one of its blocks finds the list closed and
 *     frees the block itself. The cache stays on the list of all caches,
 *     for the next thread to reopen.
 * Larger tasks, and those aligned beyond a line, use the C library. */
#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

enum { BP_TASKMEM_BLOCK = 1024, BP_TASKMEM_KEEP = 2048, BP_TASKMEM_BATCH = 32 };

/* A block's first line: its owner, and its link in a list (a block of
 * the C library's: no owner, and what to free). The task lies after it. */
struct block {
    struct bp_taskmem_cache *cache;
    struct block *next;
};

struct bp_taskmem_cache {
    struct block *private_list;
    int kept;                          /* blocks on it */
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

static void cache_close(void *arg)
{
    struct bp_taskmem_cache *c = arg;
    for (struct block *b = c->private_list, *next; b != NULL; b = next) {
        next = b->next;
        free(b);
    }
    c->private_list = NULL;
    c->kept = 0;
    /* acquire: the freeing threads' pushes are complete */
    struct block *b = atomic_exchange_explicit(&c->remote, BP_CLOSED, memory_order_acquire);
    for (struct block *next; b != NULL && b != BP_CLOSED; b = next) {
        next = b->next;
        free(b);
    }
    atomic_store_explicit(&c->open, 0, memory_order_release);
    mine = NULL;
}

/* A thread's freed blocks of one other thread's, on their way back. */
struct batch {
    struct bp_taskmem_cache *owner;
    struct block *head, *tail;
    int n;
};
static _Thread_local struct batch batch;
static _Thread_local int batch_key_set;
static pthread_key_t batch_key;

/* Push the batch onto its owner's remote list (or free it, the owner gone). */
static void batch_flush(struct batch *bt)
{
    struct bp_taskmem_cache *c = bt->owner;
    if (c == NULL)
        return;
    struct block *head = atomic_load_explicit(&c->remote, memory_order_relaxed);
    int pushed = 0;
    while (!pushed) {
        if (head == BP_CLOSED) { /* its owner exited */
            /* a failed push linked the tail to the list as it was, whose
             * blocks the owner's exit frees: the batch ends at its tail */
            bt->tail->next = NULL;
            for (struct block *b = bt->head, *next; b != NULL; b = next) {
                next = b->next;
                free(b);
            }
            break;
        }
        bt->tail->next = head;
        /* release: the blocks' contents before they are taken */
        pushed = atomic_compare_exchange_weak_explicit(&c->remote, &head, bt->head,
                                                       memory_order_release,
                                                       memory_order_relaxed);
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
    atomic_store_explicit(&c->remote, NULL, memory_order_relaxed); /* reopened */
    atomic_store_explicit(&c->open, 1, memory_order_relaxed);
    pthread_mutex_unlock(&caches_lock);
    (void)pthread_setspecific(exit_key, c);
    mine = c;
    return c;
}

void *bp_taskmem_alloc(size_t size, size_t align)
{
    if (size + 64 > BP_TASKMEM_BLOCK || align > 64) {
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
    struct block *b = c != NULL ? c->private_list : NULL;
    if (b == NULL && c != NULL && atomic_load_explicit(&c->remote, memory_order_relaxed)) {
        /* acquire: the pushers' writes to the blocks. Not counted (that
         * would read every block): kept bounds the thread's own frees */
        b = atomic_exchange_explicit(&c->remote, NULL, memory_order_acquire);
        c->kept = 0;
    }
    if (b != NULL) {
        c->private_list = b->next;
        if (c->kept > 0)
            c->kept--;
        return (char *)b + 64;
    }
    void *mem = NULL;
    if (posix_memalign(&mem, 64, BP_TASKMEM_BLOCK) != 0)
        return NULL;
    b = mem;
    b->cache = c;
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
     * of one owner (a push per block fought over the owner's list) */
    struct batch *bt = &batch;
    if (bt->owner != c || bt->n == BP_TASKMEM_BATCH)
        batch_flush(bt);
    if (bt->owner == NULL) {
        bt->owner = c;
        bt->tail = b;
        if (!batch_key_set) { /* flushed when this thread exits */
            pthread_once(&key_once, make_key);
            (void)pthread_setspecific(batch_key, bt);
            batch_key_set = 1;
        }
    }
    b->next = bt->head;
    bt->head = b;
    bt->n++;
}
