/* gomp-icv.c: the OpenMP semantics libraries rely on, each checked the way
 * a library meets it. Built by gcc and clang, linked with libbuddypool and
 * with the compiler's own runtime (which validates every check), and run
 * preloaded too:
 *   - a region nested in an inactive one (num_threads(1), if(0)) is active
 *     and gets a full team, so every share planned with omp_get_max_threads()
 *     runs (oneDNN and OpenBLAS plan that way);
 *   - a team size asked for is given beyond the CPUs: members that wait for
 *     each other (a token passed round the team, a flag set after a nowait
 *     loop or single) finish;
 *   - ICVs belong to the implicit task: a change inside a region stays
 *     there, a region's tasks inherit the forking task's values, and the
 *     OMP_NUM_THREADS list gives each level its entry;
 *   - max-active-levels 0 makes regions inactive; a nestable lock is owned
 *     by the task, not the thread;
 *   - omp_get_schedule answers from OMP_SCHEDULE before any region, with the
 *     monotonic modifier; omp_get_thread_limit from OMP_THREAD_LIMIT. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

enum { MAX_SHARES = 64 };

/* A library's kernel: plan one share per thread omp_get_max_threads() says,
 * fork, and have thread i do share i. Every share must be done once. */
static void planned_shares(const char *what)
{
    int planned = omp_get_max_threads();
    if (planned > MAX_SHARES)
        planned = MAX_SHARES;
    int done[MAX_SHARES] = {0};
    int team = 0, level = 0, active = 0, in_parallel = -1;
    PRAGMA(omp parallel num_threads(planned))
    {
        int tid = omp_get_thread_num();
        if (tid < MAX_SHARES)
            __atomic_fetch_add(&done[tid], 1, __ATOMIC_RELAXED);
        PRAGMA(omp master)
        {
            team = omp_get_num_threads();
            level = omp_get_level();
            active = omp_get_active_level();
            in_parallel = omp_in_parallel();
        }
    }
    EXPECT_EQ(team, planned, what);
    for (int i = 0; i < planned; i++)
        EXPECT_EQ(done[i], 1, what);
    EXPECT_EQ(active, omp_get_active_level() + (planned > 1), what);
    EXPECT_EQ(level, omp_get_level() + 1, what);
    EXPECT_EQ(in_parallel, planned > 1 || omp_in_parallel(), what);
}

static void nested_in_inactive(void)
{
    planned_shares("from the main thread");
    PRAGMA(omp parallel num_threads(1))
    {
        EXPECT_EQ(omp_in_parallel(), 0, "num_threads(1) is inactive");
        EXPECT_EQ(omp_get_level(), 1, "num_threads(1) level");
        EXPECT_EQ(omp_get_active_level(), 0, "num_threads(1) active level");
        planned_shares("inside num_threads(1)");
        /* the nested team's members see the inactive level above them */
        int bad = 0;
        PRAGMA(omp parallel num_threads(2))
        {
            if (omp_get_ancestor_thread_num(1) != 0 || omp_get_team_size(1) != 1 ||
                omp_get_team_size(2) != 2 || omp_get_ancestor_thread_num(2) !=
                                                 omp_get_thread_num() ||
                omp_get_level() != 2 || omp_get_active_level() != 1)
                __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        }
        EXPECT_EQ(bad, 0, "ancestor queries in a team nested in num_threads(1)");
    }
    volatile int no = 0;
    PRAGMA(omp parallel if (no))
    {
        EXPECT_EQ(omp_in_parallel(), 0, "if(0) is inactive");
        planned_shares("inside if(0)");
        PRAGMA(omp parallel num_threads(1))
        planned_shares("inside if(0) and num_threads(1)");
    }
    /* inside an active region, a nested one runs on one thread under max
     * active levels 1 (buddypool's only level; the peers' default, unless
     * OMP_NUM_THREADS is a list) */
    omp_set_max_active_levels(1);
    int inner = 0;
    PRAGMA(omp parallel num_threads(2))
    {
        PRAGMA(omp master)
        {
            PRAGMA(omp parallel num_threads(2))
            PRAGMA(omp master)
            inner = omp_get_num_threads();
        }
    }
    EXPECT_EQ(inner, 1, "a region nested in an active one");
}

/* Spin until *word == want (acquire); 0 after 30 s: the test then fails
 * instead of hanging. */
static int spin_until(int *word, int want)
{
    double deadline = omp_get_wtime() + 30.0;
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != want)
        if (omp_get_wtime() > deadline)
            return 0;
    return 1;
}

static void members_wait_for_each_other(int n)
{
    /* a token round the team, three times */
    int token = 0, team = 0, stuck = 0;
    PRAGMA(omp parallel num_threads(n))
    {
        int tid = omp_get_thread_num(), nth = omp_get_num_threads();
        PRAGMA(omp master)
        team = nth;
        for (int round = 0; round < 3; round++) {
            if (!spin_until(&token, round * nth + tid))
                __atomic_fetch_add(&stuck, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&token, round * nth + tid + 1, __ATOMIC_RELEASE);
        }
    }
    EXPECT_EQ(team, n, "num_threads(n) beyond the CPUs");
    EXPECT_EQ(stuck, 0, "the token passed round the team");
    EXPECT_EQ(token, 3 * n, "the token passed round the team");

    /* after a nowait loop, the last member waits for all the others' flags */
    int flags[MAX_SHARES] = {0};
    stuck = 0;
    omp_set_num_threads(n);
    PRAGMA(omp parallel)
    {
        int nth = omp_get_num_threads();
        PRAGMA(omp for schedule(static) nowait)
        for (int i = 0; i < nth; i++)
            __atomic_store_n(&flags[i], 1, __ATOMIC_RELEASE);
        if (omp_get_thread_num() == nth - 1)
            for (int i = 0; i < nth; i++)
                if (!spin_until(&flags[i], 1))
                    __atomic_fetch_add(&stuck, 1, __ATOMIC_RELAXED);
        PRAGMA(omp master)
        team = nth;
    }
    EXPECT_EQ(team, n, "omp_set_num_threads(n) beyond the CPUs");
    EXPECT_EQ(stuck, 0, "flags set in a nowait loop");

    /* a single nowait sets a flag the others wait for */
    int go = 0;
    stuck = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single nowait)
        __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
        if (!spin_until(&go, 1))
            __atomic_fetch_add(&stuck, 1, __ATOMIC_RELAXED);
    }
    EXPECT_EQ(stuck, 0, "a flag set by a single nowait");
    EXPECT_EQ(omp_get_max_threads(), n, "omp_get_max_threads after omp_set_num_threads");
}

/* The second entry of an OMP_NUM_THREADS list, or 0. */
static int level1_nthreads(void)
{
    const char *env = getenv("OMP_NUM_THREADS");
    const char *comma = env != NULL ? strchr(env, ',') : NULL;
    return comma != NULL ? atoi(comma + 1) : 0;
}

static void icvs_per_task(void)
{
    int before = omp_get_max_threads();
    omp_set_num_threads(3);
    /* a region's tasks get the forking task's value, or the list's entry */
    int expect = level1_nthreads() ? level1_nthreads() : 3;
    int inherited = 0, changed = 0, team = 0;
    PRAGMA(omp parallel num_threads(2))
    {
        int tid = omp_get_thread_num();
        if (omp_get_max_threads() == expect)
            __atomic_fetch_add(&inherited, 1, __ATOMIC_RELAXED);
        omp_set_num_threads(5 + tid);
        PRAGMA(omp barrier)
        if (omp_get_max_threads() == 5 + tid)
            __atomic_fetch_add(&changed, 1, __ATOMIC_RELAXED);
        PRAGMA(omp master)
        team = omp_get_num_threads();
    }
    EXPECT_EQ(inherited, team, "nthreads-var inherited by every implicit task");
    EXPECT_EQ(changed, team, "nthreads-var changed in each task alone");
    EXPECT_EQ(omp_get_max_threads(), 3, "nthreads-var after the region");
    /* a team of one is a task of its own too */
    PRAGMA(omp parallel num_threads(1))
    omp_set_num_threads(7);
    EXPECT_EQ(omp_get_max_threads(), 3, "nthreads-var after a team of one");
    omp_set_num_threads(before);

    omp_set_schedule(omp_sched_dynamic, 3);
    int same = 0;
    team = 0;
    PRAGMA(omp parallel num_threads(2))
    {
        omp_sched_t k;
        int c;
        omp_get_schedule(&k, &c);
        if (k == omp_sched_dynamic && c == 3)
            __atomic_fetch_add(&same, 1, __ATOMIC_RELAXED);
        omp_set_schedule(omp_sched_guided, 7 + omp_get_thread_num());
        omp_get_schedule(&k, &c);
        if (k != omp_sched_guided || c != 7 + omp_get_thread_num())
            __atomic_fetch_add(&same, -100, __ATOMIC_RELAXED);
        PRAGMA(omp master)
        team = omp_get_num_threads();
    }
    EXPECT_EQ(same, team, "run-sched-var inherited, then changed in each task");
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    EXPECT_EQ(k, omp_sched_dynamic, "run-sched-var after the region");
    EXPECT_EQ(c, 3, "run-sched-var's chunk after the region");
    omp_set_schedule(omp_sched_static, 0);

    omp_set_dynamic(1);
    same = 0;
    team = 0;
    PRAGMA(omp parallel num_threads(2))
    {
        if (omp_get_dynamic() == 1)
            __atomic_fetch_add(&same, 1, __ATOMIC_RELAXED);
        omp_set_dynamic(0);
        PRAGMA(omp master)
        team = omp_get_num_threads();
    }
    EXPECT_EQ(same, team, "dyn-var inherited");
    EXPECT_EQ(omp_get_dynamic(), 1, "dyn-var after the region");
    omp_set_dynamic(0);

    /* max-active-levels 0: no region is active */
    omp_set_max_active_levels(0);
    EXPECT_EQ(omp_get_max_active_levels(), 0, "max-active-levels set to 0");
    team = 0;
    int active = -1;
    PRAGMA(omp parallel num_threads(2))
    PRAGMA(omp master)
    {
        team = omp_get_num_threads();
        active = omp_get_active_level();
    }
    EXPECT_EQ(team, 1, "a region under max-active-levels 0");
    EXPECT_EQ(active, 0, "a region under max-active-levels 0");
    omp_set_max_active_levels(1);
    EXPECT_EQ(omp_get_max_active_levels(), 1, "max-active-levels set to 1");
}

/* OMP_NUM_THREADS=a,b: the tasks of a level-1 region get b, so a region
 * nested in num_threads(1) gets b threads. */
static void nthreads_list(void)
{
    int second = level1_nthreads();
    if (second == 0)
        return;
    int max_inside = 0, team = 0;
    PRAGMA(omp parallel num_threads(1))
    {
        max_inside = omp_get_max_threads();
        PRAGMA(omp parallel)
        PRAGMA(omp master)
        team = omp_get_num_threads();
    }
    EXPECT_EQ(max_inside, second, "the second entry of OMP_NUM_THREADS at level 1");
    EXPECT_EQ(team, second, "a region at level 2 from the OMP_NUM_THREADS list");
    printf("gomp-icv: OMP_NUM_THREADS list: level 1 gets %d\n", second);
}

/* A nestable lock belongs to the task that set it: the implicit task of a
 * region the owner forks cannot take it (OpenMP; libgomp and buddypool. LLVM's
 * libomp gives it to the thread, so a clang program checks this on buddypool
 * alone). */
static void nest_lock_owner(int check_owner)
{
    omp_nest_lock_t lock;
    omp_init_nest_lock(&lock);
    EXPECT_EQ(omp_test_nest_lock(&lock), 1, "first nest lock");
    EXPECT_EQ(omp_test_nest_lock(&lock), 2, "the owner nests");
    int inside = -1;
    volatile int no = 0;
    PRAGMA(omp parallel if (no))
    inside = omp_test_nest_lock(&lock);
    if (check_owner)
        EXPECT_EQ(inside, 0, "another task (if(0)) tests the lock");
    else if (inside > 0)
        omp_unset_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
    omp_destroy_nest_lock(&lock);
}

/* omp_get_schedule from OMP_SCHEDULE before any region has run. */
static void schedule_from_environment(void)
{
    static const struct {
        const char *env;
        unsigned kind;
        int chunk;
    } cases[] = {
        {"monotonic:guided,7", 0x80000003u, 7},
        {"dynamic,5", 2, 5},
        {"nonmonotonic:dynamic,4", 2, 4},
        {"guided", 3, 1},
        {"static", 1, 0},
        {"monotonic:static,2", 0x80000001u, 2},
        /* libomp's extension kinds (clang programs on libomp and buddypool) */
        {"trapezoidal,13", 101, 13},
        {"static_steal,14", 2, 14},
    };
    const char *env = getenv("OMP_SCHEDULE");
    if (env == NULL)
        return;
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(env, cases[i].env) == 0) {
            EXPECT_EQ((unsigned)k, cases[i].kind, env);
            EXPECT_EQ(c, cases[i].chunk, env);
            printf("gomp-icv: OMP_SCHEDULE=%s gives %#x, %d\n", env, (unsigned)k, c);
            return;
        }
    fprintf(stderr, "gomp-icv: no expectation for OMP_SCHEDULE=%s\n", env);
    check_failures++;
}

/* OMP_THREAD_LIMIT is what omp_get_thread_limit says, and caps no team
 * within it. */
static void thread_limit(void)
{
    const char *env = getenv("OMP_THREAD_LIMIT");
    if (env == NULL)
        return;
    EXPECT_EQ(omp_get_thread_limit(), atoi(env), "omp_get_thread_limit under OMP_THREAD_LIMIT");
    printf("gomp-icv: OMP_THREAD_LIMIT=%s: omp_get_thread_limit %d\n", env,
           omp_get_thread_limit());
}

int main(int argc, char **argv)
{
#ifdef __clang__
    int task_owned_locks = argc > 1 && strcmp(argv[1], "buddypool") == 0;
#else
    int task_owned_locks = 1;
    (void)argc, (void)argv;
#endif
    schedule_from_environment(); /* first: before any region */
    nthreads_list();
    thread_limit();
    int n = omp_get_max_threads();
    nested_in_inactive();
    members_wait_for_each_other(4);
    omp_set_num_threads(n);
    icvs_per_task();
    nest_lock_owner(task_owned_locks);
    omp_set_num_threads(n);
    check_team_size("gomp-icv");
    return check_summary("gomp-icv");
}
