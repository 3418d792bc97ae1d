/* test-sites.c: known call sites and barrier steps for the profiling tests
 * (check-profile.py sites / bound / serve reads the JSON it leaves).
 *   site_body    3 barriers (4 steps with the join); before the second the
 *                last thread waits until the others are on their way to it,
 *                then sleeps 5 ms, so it arrives last at step 1 however the
 *                threads are scheduled (4 threads share 2 CPUs in CI).
 *                Forked 3 times from fork_a (called by via_x, called by
 *                main) and 5 times from fork_b (called by main).
 *   kmp_body     __kmpc_fork_call 4 times with a source location
 *                ";test-sites.c;kmp_caller;77;5;;" and twice with clang's
 *                "no location" string: two sites, one located.
 *   many_body    10 barriers (11 steps), forked twice: past a step bound of
 *                4 (BUDDY_THREAD_POOL_PROFILE_STEPS=4) the rest holds 14.
 * `test-sites serve` forks site_body every millisecond until its standard
 * input closes: a server for the dump signal and the live counters.
 * The functions are exported (the test links with -rdynamic) so dladdr
 * names them. */
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buddypool.h"
#include "check.h"

struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
};
typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);
void __kmpc_fork_call(struct ident *loc, int32_t argc, kmpc_micro fn, ...);

void site_body(int thread, int team_size, void *ctx);
void kmp_body(int32_t *gtid, int32_t *btid);
void many_body(int thread, int team_size, void *ctx);
void fork_a(void);
void fork_b(void);
void via_x(void);

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000L * 1000L};
    nanosleep(&ts, NULL);
}

/* How many of site_body's other threads have passed its first barrier;
 * the last thread sets it back to 0 before its sleep, and the next region
 * starts only after this one's join. */
static atomic_int passed_first;

void site_body(int thread, int team_size, void *ctx)
{
    (void)ctx;
    buddypool_barrier();
    if (thread == team_size - 1) {
        while (atomic_load(&passed_first) < team_size - 1)
            sched_yield();
        atomic_store(&passed_first, 0);
        sleep_ms(5);
    } else {
        atomic_fetch_add(&passed_first, 1);
    }
    buddypool_barrier();
    buddypool_barrier();
}

void kmp_body(int32_t *gtid, int32_t *btid)
{
    (void)gtid;
    (void)btid;
}

void many_body(int thread, int team_size, void *ctx)
{
    (void)thread;
    (void)team_size;
    (void)ctx;
    for (int i = 0; i < 10; i++)
        buddypool_barrier();
}

__attribute__((noinline)) void fork_a(void)
{
    CHECK_EQ(buddypool_parallel(0, site_body, NULL), 0);
    __asm__ volatile("" ::: "memory"); /* no tail call: fork_a stays on the stack */
}

__attribute__((noinline)) void fork_b(void)
{
    CHECK_EQ(buddypool_parallel(0, site_body, NULL), 0);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void via_x(void)
{
    fork_a();
    __asm__ volatile("" ::: "memory");
}

/* Until standard input closes (or 60 s pass). */
static int serve(void)
{
    for (int i = 0; i < 60000; i++) {
        fork_b();
        struct pollfd p = {.fd = 0, .events = POLLIN};
        if (poll(&p, 1, 1) > 0) {
            char buf[64];
            if (read(0, buf, sizeof buf) <= 0)
                return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return serve();
    printf("threads=%d\n", buddypool_max_threads());
    fflush(stdout);
    /* volatile counts: loops that are not unrolled call from one place each */
    volatile int three = 3, five = 5, four = 4, two = 2;
    for (int i = 0; i < three; i++)
        via_x();
    for (int i = 0; i < five; i++)
        fork_b();
    static struct ident located = {0, 2, 0, 0, ";test-sites.c;kmp_caller;77;5;;"};
    static struct ident unknown = {0, 2, 0, 0, ";unknown;unknown;0;0;;"};
    for (int i = 0; i < four; i++)
        __kmpc_fork_call(&located, 0, (kmpc_micro)kmp_body);
    for (int i = 0; i < two; i++)
        __kmpc_fork_call(&unknown, 0, (kmpc_micro)kmp_body);
    for (int i = 0; i < two; i++)
        CHECK_EQ(buddypool_parallel(0, many_body, NULL), 0);
    return 0;
}
