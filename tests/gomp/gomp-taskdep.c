/* gomp-taskdep.c: task dependences, built by gcc (GOMP_task's depend
 * array, GOMP_taskwait_depend) and by clang (__kmpc_omp_task_with_deps,
 * __kmpc_omp_wait_deps, __kmpc_omp_taskwait_deps_51), iterators in depend
 * clauses too: every task records when it started and ended on one clock
 * (a counter), and the checks read the record: a task that must wait for
 * another starts after the other ended. Run at 1, 2 and 4 threads.
 * inoutset and omp_all_memory are clang's only (gcc 12 has neither). */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "gomp-check.h"

enum { N = 400, VARS = 6, RANDOM_TASKS = 600 };

static long clock_now;
static long started[RANDOM_TASKS + N], ended[RANDOM_TASKS + N];

static void begin(int i) { started[i] = __atomic_add_fetch(&clock_now, 1, __ATOMIC_SEQ_CST); }
static void end(int i) { ended[i] = __atomic_add_fetch(&clock_now, 1, __ATOMIC_SEQ_CST); }

/* Work long enough that a wrongly unordered pair overlaps. */
static void work(void)
{
    for (volatile int k = 0; k < 200; k++)
        ;
}

static void reset(void)
{
    clock_now = 0;
    memset(started, 0, sizeof started);
    memset(ended, 0, sizeof ended);
}

/* inout chain: the tasks run one after another, in the order made. */
static void chain(void)
{
    int x = 0, order[N], next = 0;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    for (int i = 0; i < N; i++) {
        PRAGMA(omp task depend(inout: x) firstprivate(i) shared(x, order, next))
        {
            order[next++] = i;
            x++;
        }
    }
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += order[i] != i;
    EXPECT_EQ(x, N, "inout chain: every task");
    EXPECT_EQ(bad, 0, "inout chain: in the order made");
}

/* out, then readers, then out: the readers wait for the first writer and
 * not for each other; the second writer for every reader. */
static void readers(void)
{
    reset();
    int x = 0;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp task depend(out: x) shared(x))
        {
            begin(0);
            work();
            x = 1;
            end(0);
        }
        for (int i = 1; i <= 50; i++) {
            PRAGMA(omp task depend(in: x) firstprivate(i) shared(x))
            {
                begin(i);
                EXPECT_EQ(x, 1, "in: sees the writer's value");
                work();
                end(i);
            }
        }
        PRAGMA(omp task depend(out: x) shared(x))
        {
            begin(51);
            x = 2;
            end(51);
        }
        PRAGMA(omp taskwait depend(in: x))
        EXPECT_EQ(x, 2, "taskwait depend: the last writer is done");
    }
    int bad = 0;
    for (int i = 1; i <= 50; i++)
        bad += !(started[i] > ended[0]) + !(started[51] > ended[i]);
    EXPECT_EQ(bad, 0, "out, in..., out: the order kept");
}

/* mutexinoutset: one at a time, all before a later in. */
static void mutexinoutset(void)
{
    int x = 0, inside = 0, most = 0, done = 0;
    (void)x; /* named by the clauses only */
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        for (int i = 0; i < 40; i++) {
            PRAGMA(omp task depend(mutexinoutset: x) shared(inside, most, done))
            {
                int now = __atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);
                if (now > most)
                    most = now;
                work();
                __atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
                __atomic_add_fetch(&done, 1, __ATOMIC_SEQ_CST);
            }
        }
        PRAGMA(omp task depend(in: x) shared(done))
        EXPECT_EQ(__atomic_load_n(&done, __ATOMIC_SEQ_CST), 40, "mutexinoutset: all before in");
    }
    EXPECT_EQ(most, 1, "mutexinoutset: one at a time");
}

/* Depend objects name the same dependences. */
static void depobj(void)
{
    int x = 0, seen = -1;
    omp_depend_t w, r;
    PRAGMA(omp depobj(w) depend(inout: x))
    PRAGMA(omp depobj(r) depend(in: x))
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp task depend(depobj: w) shared(x))
        {
            work();
            x = 7;
        }
        PRAGMA(omp task depend(depobj: r) shared(x, seen))
        seen = x;
    }
    PRAGMA(omp depobj(w) destroy)
    PRAGMA(omp depobj(r) destroy)
    EXPECT_EQ(seen, 7, "depobj: in after inout");
}

/* An if(0) task with dependences waits for them, then runs at once. */
static void undeferred(void)
{
    int x = 0, seen = -1, after = 0;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp task depend(out: x) shared(x))
        {
            work();
            x = 3;
        }
        PRAGMA(omp task if (0) depend(in: x) shared(x, seen))
        seen = x;
        after = seen;
    }
    EXPECT_EQ(after, 3, "if(0) with depend: after its predecessor, before the construct ends");
}

/* An iterator in depend: the reader waits for the writer of every element
 * the iterator names, and not for the element it leaves out. */
static void iterator(void)
{
    reset();
    int a[6] = {0}, seen = -1;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        for (int k = 0; k < 5; k++) {
            PRAGMA(omp task depend(out: a[k]) firstprivate(k) shared(a))
            {
                begin(k);
                work();
                a[k] = k + 1;
                end(k);
            }
        }
        int n = 4; /* the iterator's bound, known at run time only */
        (void)n;   /* gcc 12 sees no use of it in the iterator */
        PRAGMA(omp task depend(iterator(j = 0:n), in: a[j]) shared(a, seen))
        {
            begin(5);
            seen = a[0] + a[1] + a[2] + a[3];
            end(5);
        }
    }
    EXPECT_EQ(seen, 10, "depend iterator: the writers' values");
    int bad = 0;
    for (int k = 0; k < 4; k++)
        bad += !(started[5] > ended[k]);
    EXPECT_EQ(bad, 0, "depend iterator: after every writer it names");
}

/* Random dependences over a few variables: for every pair that conflicts
 * (one of them writes), the later-made task starts after the earlier ends. */
static int kinds[RANDOM_TASKS][VARS]; /* 0 none, 1 in, 2 inout */

static void random_dag(void)
{
    reset();
    unsigned s = 12345;
    for (int i = 0; i < RANDOM_TASKS; i++)
        for (int v = 0; v < VARS; v++) {
            s = s * 1103515245u + 12345u;
            kinds[i][v] = (s >> 16) % 7 == 0 ? 2 : (s >> 16) % 7 < 3 ? 1 : 0;
        }
    int vars[VARS];
    (void)vars; /* named by the depend objects only */
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    for (int i = 0; i < RANDOM_TASKS; i++) {
        /* each variable in, inout or not at all, through depend objects;
         * "not at all" is an in on a word no task writes */
        omp_depend_t d0, d1, d2, d3, d4, d5;
        omp_depend_t *d[VARS] = {&d0, &d1, &d2, &d3, &d4, &d5};
        for (int v = 0; v < VARS; v++) {
            omp_depend_t o;
            if (kinds[i][v] == 1) {
                PRAGMA(omp depobj(o) depend(in: vars[v]))
            } else if (kinds[i][v] == 2) {
                PRAGMA(omp depobj(o) depend(inout: vars[v]))
            } else {
                PRAGMA(omp depobj(o) depend(in: clock_now))
            }
            *d[v] = o;
        }
        PRAGMA(omp task firstprivate(i) depend(depobj: d0) depend(depobj: d1)
               depend(depobj: d2) depend(depobj: d3) depend(depobj: d4) depend(depobj: d5))
        {
            begin(i);
            work();
            end(i);
        }
        for (int v = 0; v < VARS; v++) {
            omp_depend_t o = *d[v];
            PRAGMA(omp depobj(o) destroy)
        }
    }
    int bad = 0, ran = 0;
    for (int j = 0; j < RANDOM_TASKS; j++) {
        ran += started[j] > 0 && ended[j] > started[j];
        for (int i = 0; i < j; i++) {
            int conflict = 0;
            for (int v = 0; v < VARS; v++)
                conflict |= kinds[i][v] && kinds[j][v] && (kinds[i][v] == 2 || kinds[j][v] == 2);
            if (conflict && !(started[j] > ended[i]))
                bad++;
        }
    }
    EXPECT_EQ(ran, RANDOM_TASKS, "random dependences: every task ran once");
    EXPECT_EQ(bad, 0, "random dependences: every conflicting pair in order");
}

#ifdef __clang__
/* inoutset: the set's members run in any order, after the writer before
 * them, before the reader after them; omp_all_memory waits for all. */
static void inoutset(void)
{
    reset();
    int x = 0, y = 0;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp task depend(out: x) shared(x))
        {
            begin(0);
            work();
            end(0);
        }
        for (int i = 1; i <= 20; i++) {
            PRAGMA(omp task depend(inoutset: x) firstprivate(i))
            {
                begin(i);
                work();
                end(i);
            }
        }
        PRAGMA(omp task depend(in: x))
        {
            begin(21);
            end(21);
        }
        PRAGMA(omp task depend(in: y))
        {
            begin(22);
            work();
            end(22);
        }
        PRAGMA(omp task depend(out: omp_all_memory))
        {
            begin(23);
            end(23);
        }
        PRAGMA(omp task depend(in: y))
        {
            begin(24);
            end(24);
        }
        /* two omp_all_memory tasks in a row, the table empty between */
        PRAGMA(omp task depend(out: omp_all_memory))
        {
            begin(25);
            work();
            end(25);
        }
        PRAGMA(omp task depend(out: omp_all_memory))
        {
            begin(26);
            end(26);
        }
    }
    int bad = 0;
    for (int i = 1; i <= 20; i++)
        bad += !(started[i] > ended[0]) + !(started[21] > ended[i]);
    EXPECT_EQ(bad, 0, "inoutset: after the writer, before the reader");
    int all_bad = 0;
    for (int i = 0; i <= 22; i++)
        all_bad += !(started[23] > ended[i]);
    EXPECT_EQ(all_bad, 0, "omp_all_memory: after every earlier task");
    EXPECT_GE(started[24], ended[23] + 1, "after omp_all_memory");
    EXPECT_GE(started[26], ended[25] + 1, "omp_all_memory after omp_all_memory");
}
#endif

int main(void)
{
    check_team_size("gomp-taskdep");
    for (int round = 0; round < 3; round++) {
        chain();
        readers();
        mutexinoutset();
        depobj();
        undeferred();
        iterator();
        random_dag();
#ifdef __clang__
        inoutset();
#endif
    }
    return check_summary("gomp-taskdep");
}
