/* steps.c: the profile's barrier steps. Inside a region, the k-th barrier
 * episode ends step k: in ggml's one region per token, step k is the k-th
 * graph node; in a region with a loop and a reduction, the loop and the
 * reduction. Per region function and per step index the profile counts the
 * episodes, the time all threads waited in them, which thread arrived last,
 * and the step's work: from the end of the step before (the first release
 * of the previous episode, or the region's fork) to the last arrival.
 *
 * Recording. Each thread of an outermost team writes its episodes' arrival
 * and release times into a buffer of its own (bp_config.profile_steps
 * entries, made at a worker's start and kept, and at a forking thread's
 * first profiled region, freed when that thread exits), so a barrier costs
 * it one store beside the two clock reads it already makes; nothing is
 * shared until the join. Episodes past the bound are summed per thread:
 * their waits, and the thread's own time before each. The join is the
 * region's last episode: the threads' arrivals at it are their join times,
 * its release the region's end.
 *
 * Accounting. After the join, thread 0 (the workers parked, holding
 * the profile's lock for the accounting) reads every thread's buffer and folds the
 * region into its row's
 * steps: exact for the kept steps; for the rest, calls and waits exact and
 * work as thread 0's own time (which thread arrived last is not tracked
 * past the bound). A row's steps grow to the largest index seen. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* A forking thread's buffer, on a list of them all (so that those of
 * threads a child of fork() does not have can be freed there); it goes
 * when the thread exits (the key's value). */
struct caller_rec {
    struct caller_rec *next, *prev;
    struct bp_step_rec rec[];
};
static pthread_mutex_t callers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct caller_rec *callers;
static pthread_key_t rec_key;
static pthread_once_t rec_key_once = PTHREAD_ONCE_INIT;
static int rec_key_made;

static void caller_unlink(struct caller_rec *c)
{
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        callers = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
}

static void caller_exit(void *arg)
{
    struct caller_rec *c = arg;
    pthread_mutex_lock(&callers_lock);
    caller_unlink(c);
    pthread_mutex_unlock(&callers_lock);
    free(c);
}

static void make_rec_key(void)
{
    rec_key_made = pthread_key_create(&rec_key, caller_exit) == 0;
}

static struct bp_step_rec *caller_alloc(void)
{
    struct caller_rec *c =
        malloc(sizeof *c + sizeof c->rec[0] * (size_t)bp_config.profile_steps);
    if (c == NULL)
        bp_fatal("profile: out of memory for %d barrier steps per thread "
                 "(BUDDY_THREAD_POOL_PROFILE_STEPS)", bp_config.profile_steps);
    pthread_mutex_lock(&callers_lock);
    c->prev = NULL;
    c->next = callers;
    if (callers != NULL)
        callers->prev = c;
    callers = c;
    pthread_mutex_unlock(&callers_lock);
    pthread_once(&rec_key_once, make_rec_key);
    if (rec_key_made)
        pthread_setspecific(rec_key, c);
    return c->rec;
}

static struct caller_rec *caller_of(struct bp_step_rec *rec)
{
    return (struct caller_rec *)((char *)rec - offsetof(struct caller_rec, rec));
}

void bp_steps_fork_child(struct bp_listen_thread *self)
{
    pthread_mutex_init(&callers_lock, NULL);
    struct caller_rec *mine = self->worker == 0 && self->steps.rec != NULL
                                  ? caller_of(self->steps.rec) : NULL;
    for (struct caller_rec *c = callers, *next; c != NULL; c = next) {
        next = c->next;
        if (c != mine)
            free(c); /* another thread's, which the child does not have */
    }
    callers = mine;
    if (mine != NULL)
        mine->next = mine->prev = NULL;
}

static struct bp_step_rec *rec_alloc(void)
{
    struct bp_step_rec *r = malloc(sizeof *r * (size_t)bp_config.profile_steps);
    if (r == NULL)
        bp_fatal("profile: out of memory for %d barrier steps per thread "
                 "(BUDDY_THREAD_POOL_PROFILE_STEPS)", bp_config.profile_steps);
    return r;
}

void bp_steps_begin(struct bp_listen_thread *lt, int64_t start_ns)
{
    struct bp_steps_rec *s = &lt->steps;
    if (s->rec == NULL) /* a worker's is freed when it stops */
        s->rec = lt->worker > 0 ? rec_alloc() : caller_alloc();
    lt->barriers = 0;
    s->rest_wait_ns = s->rest_work_ns = 0;
    s->last_release_ns = start_ns;
    s->on = 1;
}

void bp_steps_record(struct bp_listen_thread *lt, int64_t arrive_ns, int64_t release_ns)
{
    struct bp_steps_rec *s = &lt->steps;
    if (!s->on) /* a region the profile does not time (a nested one's, or after the report) */
        return;
    uint32_t k = lt->barriers++;
    if (k < (uint32_t)bp_config.profile_steps && s->rec != NULL) {
        s->rec[k] = (struct bp_step_rec){arrive_ns, release_ns};
    } else {
        s->rest_wait_ns += release_ns - arrive_ns;
        s->rest_work_ns += arrive_ns - s->last_release_ns;
    }
    s->last_release_ns = release_ns;
}

struct bp_step_view bp_steps_view(const struct bp_listen_thread *lt)
{
    return (struct bp_step_view){lt->steps.rec, lt->barriers, lt->steps.rest_wait_ns,
                                 lt->steps.rest_work_ns, lt->steps.last_release_ns};
}

/* Entry idx of st, made (zeroed) when new; a kept step's last-arrival
 * counts hold `threads` entries. NULL when out of memory. */
static struct bp_step *step_at(struct bp_steps *st, uint32_t idx, int threads)
{
    if (idx >= st->n) {
        uint32_t n = st->n ? st->n : 4;
        while (n <= idx)
            n *= 2;
        uint32_t bound = (uint32_t)bp_config.profile_steps + 1;
        if (n > bound)
            n = bound;
        struct bp_step *s = realloc(st->s, sizeof *s * n);
        if (s == NULL)
            return NULL;
        memset(s + st->n, 0, sizeof *s * (n - st->n));
        st->s = s;
        st->n = n;
    }
    struct bp_step *s = &st->s[idx];
    if (idx < (uint32_t)bp_config.profile_steps && s->last_n < threads) {
        uint64_t *last = realloc(s->last, sizeof *last * (size_t)threads);
        if (last == NULL)
            return NULL;
        memset(last + s->last_n, 0, sizeof *last * (size_t)(threads - s->last_n));
        s->last = last;
        s->last_n = threads;
    }
    return s;
}

/* The arrival and release of thread i at episode k (k == e - 1: the join). */
static int episode_of(const struct bp_region_sample *r, int i, uint32_t k, int64_t *arrive,
                      int64_t *release)
{
    if (k + 1 == r->barriers) {
        *arrive = r->thread_joined[i];
        *release = r->end_ns;
        return 1;
    }
    const struct bp_step_view *v = &r->thread_steps[i];
    if (v->rec == NULL || k >= v->n)
        return 0;
    *arrive = v->rec[k].arrive_ns;
    *release = v->rec[k].release_ns;
    return 1;
}

void bp_steps_account(struct bp_steps *st, const struct bp_region_sample *r, int threads)
{
    uint32_t bound = (uint32_t)bp_config.profile_steps, e = r->barriers;
    int team = r->threads < threads ? r->threads : threads;
    int64_t prev_end = r->start_ns;
    for (uint32_t k = 0; k < e; k++) {
        int join = k + 1 == e;
        if (k >= bound && !join)
            continue; /* summed per thread: below */
        struct bp_step *s = step_at(st, k < bound ? k : bound, team);
        int64_t wait = 0, last_ns = INT64_MIN, first_release = INT64_MAX;
        int last = -1;
        for (int i = 0; i < r->threads; i++) {
            int64_t a, rel;
            if (!episode_of(r, i, k, &a, &rel))
                continue;
            wait += rel - a;
            if (a > last_ns) {
                last_ns = a;
                last = i;
            }
            if (rel < first_release)
                first_release = rel;
        }
        if (s == NULL || last < 0)
            continue;
        if (k >= bound) /* the join past the bound: thread 0's own time */
            prev_end = r->thread_steps[0].last_release_ns;
        s->calls++;
        s->wait_ns += wait;
        s->work_ns += (k >= bound ? r->thread_joined[0] : last_ns) - prev_end;
        if (k < bound && last < s->last_n)
            s->last[last]++;
        prev_end = first_release;
    }
    if (e > bound + 1) { /* episodes bound .. e-2, summed per thread */
        struct bp_step *s = step_at(st, bound, team);
        if (s == NULL)
            return;
        s->calls += e - 1 - bound;
        for (int i = 0; i < r->threads; i++)
            s->wait_ns += r->thread_steps[i].rest_wait_ns;
        s->work_ns += r->thread_steps[0].rest_work_ns;
    }
}

void bp_steps_free(struct bp_steps *st)
{
    for (uint32_t i = 0; i < st->n; i++)
        free(st->s[i].last);
    free(st->s);
    memset(st, 0, sizeof *st);
}

void bp_steps_shutdown(struct bp_listen_thread *self)
{
    if (self->worker == 0 && self->steps.rec != NULL) {
        if (rec_key_made)
            pthread_setspecific(rec_key, NULL);
        caller_exit(caller_of(self->steps.rec));
    }
    self->steps.rec = NULL; /* no profiled region starts after the shutdown */
    if (rec_key_made) {
        /* the library may be unloaded: no destructor of ours may run later
         * (other threads' buffers stay with them, as the process ends) */
        pthread_key_delete(rec_key);
        rec_key_made = 0;
    }
}

void bp_steps_worker_free(struct bp_step_rec *rec)
{
    free(rec);
}
