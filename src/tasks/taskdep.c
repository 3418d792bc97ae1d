/* taskdep.c: task dependences (depend clauses) between sibling tasks.
 *
 * A task with dependences is entered in its parent's table (struct
 * bp_dep_table, made on the parent's first such child), which maps each
 * address to the tasks a later sibling must wait for:
 *   last     the last task that wrote it (out, inout, mutexinoutset), or
 *            the tasks of the last inoutset group;
 *   readers  the `in` tasks since then;
 *   set_pred what the current inoutset group waits for, so that a task
 *            joining the group waits for the same and not for its members.
 * The rules, for a new task N and one address:
 *   in        waits for `last`; joins readers.
 *   out, inout, mutexinoutset
 *             waits for the readers if there are any, else for `last`
 *             (the readers waited for `last` already); becomes `last`.
 *             mutexinoutset is ordered as inout: mutually exclusive, in
 *             the order the tasks were made, which the clause allows
 *             (libgomp does the same).
 *   inoutset  joins the group when `last` is an inoutset group with no
 *             readers since (waits for its set_pred), else starts one:
 *             set_pred becomes the readers if there are any, else `last`.
 *   omp_all_memory (clang's `all` flag)
 *             waits for every task the table names, and the table then
 *             names it alone (table->all), which every later task waits for.
 * "Waits for P" means: unless P is complete, N joins P's successors and
 * counts one more predecessor (N->npred). All of this happens under the
 * table's lock, which a completing task takes too, to mark itself complete
 * and take its successors: each loses one predecessor, and the one that
 * reaches 0 is ready (bp_task_ready). A name in a list holds the task's
 * memory (bp_task_hold), until the list forgets it: a later writer, a list
 * of readers pruned of complete tasks, or the table's end, when its parent
 * and every child are complete (for an implicit task, at the region's
 * end). */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

struct dep_list {
    struct bp_task **v;
    int n, cap;
};

struct dep_entry {
    uintptr_t addr;
    struct dep_entry *next;
    struct dep_list last, readers, set_pred;
    int last_is_set;
};

/* libomp's view of a node's successors (its kmp_depnode_list_t), made
 * when __kmpc_task_get_successors asks and kept until the node is freed. */
struct kmp_succ {
    struct bp_dep_node *node;
    struct kmp_succ *next;
};

struct bp_dep_node {
    /* first: libomp's kmp_base_depnode_t starts with its successors, which
     * a program reads through __kmpc_task_get_depnode (bp_task_depnode) */
    struct kmp_succ *kmp_succ;
    struct kmp_succ *kmp_given; /* lists handed out before, kept: a caller may still read them */
    struct dep_list succ; /* under the parent's table lock */
    int done;
};

struct bp_dep_table {
    _Atomic uint32_t lock;
    int nbuckets, count;
    struct dep_entry **buckets;
    struct bp_task *all; /* the last omp_all_memory task, held */
};

enum { BP_DEP_PRUNE_AT = 32 }; /* readers kept before the complete ones go */

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (q == NULL)
        bp_fatal("task dependences: out of memory");
    return q;
}

static void hold(struct bp_task *task) { bp_task_hold(task); }

static void list_push(struct dep_list *l, struct bp_task *task)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4;
        l->v = xrealloc(l->v, sizeof *l->v * (size_t)l->cap);
    }
    l->v[l->n++] = task;
}

/* Forget every name, dropping their references. */
static void list_clear(struct dep_list *l)
{
    for (int i = 0; i < l->n; i++)
        bp_task_unref(l->v[i]);
    l->n = 0;
}

static void list_free(struct dep_list *l)
{
    list_clear(l);
    free(l->v);
    l->v = NULL;
    l->cap = 0;
}

/* Move a list's names (and references) to another, emptied first. */
static void list_move(struct dep_list *to, struct dep_list *from)
{
    list_clear(to);
    free(to->v);
    *to = *from;
    *from = (struct dep_list){0};
}

/* Drop the names of complete tasks (the table's lock held). */
static void list_prune(struct dep_list *l)
{
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        if (l->v[i]->dep->done)
            bp_task_unref(l->v[i]);
        else
            l->v[k++] = l->v[i];
    }
    l->n = k;
}

/* n waits for p, unless p is complete or is n. */
static void add_pred(struct bp_task *n, struct bp_task *p)
{
    struct bp_dep_node *pd = p->dep;
    if (p == n || pd->done)
        return;
    /* n's predecessors are added one after another: a repeat is the last */
    if (pd->succ.n > 0 && pd->succ.v[pd->succ.n - 1] == n)
        return;
    list_push(&pd->succ, n);
    hold(n);
    bp_hook_task_dependence(&p->tool, &n->tool);
    /* relaxed: npred is read after the lock's release, or by its last
     * predecessor's acq_rel decrement */
    atomic_fetch_add_explicit(&n->npred, 1, memory_order_relaxed);
}

static void add_preds(struct bp_task *n, const struct dep_list *l)
{
    for (int i = 0; i < l->n; i++)
        add_pred(n, l->v[i]);
}

static size_t hash_addr(uintptr_t a)
{
    a ^= a >> 17;
    a *= (uintptr_t)0x9e3779b97f4a7c15ull;
    return (size_t)(a ^ (a >> 29));
}

static struct dep_entry *entry_of(struct bp_dep_table *tab, uintptr_t addr)
{
    if (tab->count >= tab->nbuckets) { /* grow: keep chains short */
        int nb = tab->nbuckets ? 2 * tab->nbuckets : 64;
        struct dep_entry **b = calloc((size_t)nb, sizeof *b);
        if (b == NULL)
            bp_fatal("task dependences: out of memory");
        for (int i = 0; i < tab->nbuckets; i++) {
            for (struct dep_entry *e = tab->buckets[i], *next; e != NULL; e = next) {
                next = e->next;
                size_t h = hash_addr(e->addr) & (size_t)(nb - 1);
                e->next = b[h];
                b[h] = e;
            }
        }
        free(tab->buckets);
        tab->buckets = b;
        tab->nbuckets = nb;
    }
    size_t h = hash_addr(addr) & (size_t)(tab->nbuckets - 1);
    for (struct dep_entry *e = tab->buckets[h]; e != NULL; e = e->next)
        if (e->addr == addr)
            return e;
    struct dep_entry *e = calloc(1, sizeof *e);
    if (e == NULL)
        bp_fatal("task dependences: out of memory");
    e->addr = addr;
    e->next = tab->buckets[h];
    tab->buckets[h] = e;
    tab->count++;
    return e;
}

static void entry_free(struct dep_entry *e)
{
    list_free(&e->last);
    list_free(&e->readers);
    list_free(&e->set_pred);
    free(e);
}

/* One dependence of n on the entry's address. */
static void register_one(struct dep_entry *e, struct bp_task *n, int kind)
{
    switch (kind) {
    case BP_DEP_IN:
        add_preds(n, &e->last);
        if (e->readers.n >= BP_DEP_PRUNE_AT)
            list_prune(&e->readers);
        hold(n);
        list_push(&e->readers, n);
        break;
    case BP_DEP_INOUTSET:
        if (e->last_is_set && e->readers.n == 0) {
            add_preds(n, &e->set_pred);
        } else {
            struct dep_list *pred = e->readers.n > 0 ? &e->readers : &e->last;
            add_preds(n, pred);
            list_move(&e->set_pred, pred);
            list_clear(&e->readers);
            list_clear(&e->last);
            e->last_is_set = 1;
        }
        hold(n);
        list_push(&e->last, n);
        break;
    default: /* out, inout, mutexinoutset */
        add_preds(n, e->readers.n > 0 ? &e->readers : &e->last);
        list_clear(&e->readers);
        list_clear(&e->last);
        list_clear(&e->set_pred);
        e->last_is_set = 0;
        hold(n);
        list_push(&e->last, n);
        break;
    }
}

/* omp_all_memory: n waits for every task the table names, then is all it
 * names. */
static void register_all(struct bp_dep_table *tab, struct bp_task *n)
{
    for (int i = 0; i < tab->nbuckets; i++) {
        for (struct dep_entry *e = tab->buckets[i], *next; e != NULL; e = next) {
            next = e->next;
            add_preds(n, &e->last);
            add_preds(n, &e->readers);
            entry_free(e);
        }
        tab->buckets[i] = NULL;
    }
    tab->count = 0;
    if (tab->all != NULL) { /* the one before: the entries may not name it */
        add_pred(n, tab->all);
        bp_task_unref(tab->all);
    }
    hold(n);
    tab->all = n;
}

void bp_deps_register(struct bp_task *parent, struct bp_task *n, const struct bp_dep *deps,
                      int ndeps)
{
    struct bp_dep_table *tab = parent->dep_table;
    if (tab == NULL) { /* only the parent's own code makes its children */
        tab = calloc(1, sizeof *tab);
        if (tab == NULL)
            bp_fatal("task dependences: out of memory");
        parent->dep_table = tab;
    }
    n->dep = calloc(1, sizeof *n->dep);
    if (n->dep == NULL)
        bp_fatal("task dependences: out of memory");
    bp_lock(&tab->lock);
    int all = 0;
    for (int i = 0; i < ndeps; i++)
        all |= deps[i].kind == BP_DEP_ALL;
    if (all) {
        register_all(tab, n);
    } else {
        if (tab->all != NULL)
            add_pred(n, tab->all);
        for (int i = 0; i < ndeps; i++)
            register_one(entry_of(tab, deps[i].addr), n, deps[i].kind);
    }
    bp_unlock(&tab->lock);
}

void bp_deps_release(struct bp_task *task)
{
    struct bp_dep_table *tab = task->parent->dep_table;
    bp_lock(&tab->lock);
    task->dep->done = 1;
    struct dep_list succ = task->dep->succ;
    task->dep->succ = (struct dep_list){0};
    bp_unlock(&tab->lock);
    for (int i = 0; i < succ.n; i++) {
        struct bp_task *s = succ.v[i];
        /* read before the decrement, while s cannot run yet: an undeferred
         * s is run by its maker, which waits for npred to reach 0 */
        int waited = (s->flags & BP_TASK_WAITED) != 0;
        /* acq_rel: the successor's runner sees this task's writes */
        if (atomic_fetch_sub_explicit(&s->npred, 1, memory_order_acq_rel) == 1 && !waited)
            bp_task_ready(s);
        bp_task_unref(s);
    }
    free(succ.v);
}

void bp_task_deps_table_free(struct bp_task *task)
{
    struct bp_dep_table *tab = task->dep_table;
    for (int i = 0; i < tab->nbuckets; i++)
        for (struct dep_entry *e = tab->buckets[i], *next; e != NULL; e = next) {
            next = e->next;
            entry_free(e);
        }
    free(tab->buckets);
    if (tab->all != NULL)
        bp_task_unref(tab->all);
    free(tab);
    task->dep_table = NULL;
}

static void kmp_list_free(struct kmp_succ *e)
{
    for (struct kmp_succ *next; e != NULL; e = next) {
        next = e->next;
        free(e);
    }
}

void *bp_task_depnode(struct bp_task *task) { return task->dep; }

void *bp_task_successors(struct bp_task *task)
{
    struct bp_dep_node *d = task->dep;
    if (d == NULL)
        return NULL;
    struct bp_dep_table *tab = task->parent->dep_table;
    if (tab == NULL) /* the parent's children are all complete: none waits */
        return NULL;
    bp_lock(&tab->lock);
    if (d->kmp_succ != NULL) { /* the last list handed out joins the kept ones */
        struct kmp_succ *tail = d->kmp_succ;
        while (tail->next != NULL)
            tail = tail->next;
        tail->next = d->kmp_given;
        d->kmp_given = d->kmp_succ;
        d->kmp_succ = NULL;
    }
    for (int i = d->succ.n - 1; i >= 0; i--) { /* the list in the order made */
        struct kmp_succ *e = xrealloc(NULL, sizeof *e);
        e->node = d->succ.v[i]->dep;
        e->next = d->kmp_succ;
        d->kmp_succ = e;
    }
    bp_unlock(&tab->lock);
    return d->kmp_succ;
}

void bp_task_node_free(struct bp_task *task)
{
    if (task->dep != NULL) {
        kmp_list_free(task->dep->kmp_succ);
        kmp_list_free(task->dep->kmp_given);
        list_free(&task->dep->succ);
        free(task->dep);
        task->dep = NULL;
    }
}
