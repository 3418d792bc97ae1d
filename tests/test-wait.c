/* test-wait.c: the waits' Dekker pair alone (src/core/wait.c). Two threads play
 * ping-pong on two flags, ROUNDS times, with a spin of 1 us before a wait
 * sleeps (the first look at the clock comes after 256 reads, some 10 us);
 * before each set the setter works a varying while (0-25 us), so that sets
 * fall before, during and after its partner's move to sleep. A wake-up
 * lost to a setter that did not see a sleeper hangs the game, and ctest's
 * timeout reports it. Run once with the pair the machine allows
 * (asymmetric with membarrier), once symmetric (`symmetric`), and once
 * asymmetric with membarrier refused by a seccomp filter installed after
 * the pair was chosen (`refused`): each sleep is then timed, and the game
 * still ends (where seccomp or the asymmetric pair is missing, it says so
 * and passes).
 * The window a broken pair would open is short (on x86, a store waiting in
 * the setter's store buffer while its load of `sleepers` goes ahead, a few
 * hundred nanoseconds), so this exercises the sleep path in both pairs but
 * may not catch every broken one: without the sleeper's membarrier it ran
 * 300000 rounds unharmed on a 2-CPU guest. Not timed. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__linux__)
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "../src/internal.h"
#include "check.h"

enum { ROUNDS = 30000 };

static struct bp_flag ping, pong;
static volatile uint64_t sink;

/* About `units` * 10 ns of work that the compiler keeps. */
static void work(unsigned units)
{
    uint64_t x = units;
    for (unsigned i = 0; i < units * 4; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

static unsigned next_units(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) % 2500; /* 0-25 us */
}

static void *partner(void *arg)
{
    (void)arg;
    uint32_t seed = 7;
    for (uint32_t k = 1; k <= ROUNDS; k++) {
        bp_flag_wait(&ping, k);
        work(next_units(&seed));
        bp_flag_set(&pong, k);
    }
    return NULL;
}

/* Make membarrier fail with EPERM in this process from now on; 0 if the
 * filter could not be installed. */
static int refuse_membarrier(void)
{
#if defined(__linux__) && defined(__NR_membarrier) && defined(SECCOMP_MODE_FILTER)
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof code / sizeof code[0], .filter = code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return 0;
    errno = 0;
    return syscall(__NR_membarrier, 0 /* MEMBARRIER_CMD_QUERY */, 0, 0) == -1 && errno == EPERM;
#else
    return 0;
#endif
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int symmetric = strcmp(mode, "symmetric") == 0, refused = strcmp(mode, "refused") == 0;
    bp_config_load();
    bp_config.spin_ns = 1000; /* sleep after 1 us */
    /* named, so that the asymmetric pair is tested on every processor */
    bp_config.wait_pair = symmetric ? BP_WAIT_PAIR_SYMMETRIC : BP_WAIT_PAIR_ASYMMETRIC;
    bp_wait_choose(!symmetric);
    if (symmetric)
        CHECK_EQ(bp_wait_asymmetric(), 0);
    if (refused && (!bp_wait_asymmetric() || !refuse_membarrier())) {
        printf("test-wait: no asymmetric pair or no seccomp here: nothing to refuse\n");
        return 0;
    }
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, partner, NULL), 0);
    uint32_t seed = 11;
    for (uint32_t k = 1; k <= ROUNDS; k++) {
        work(next_units(&seed));
        bp_flag_set(&ping, k);
        bp_flag_wait(&pong, k);
    }
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(atomic_load(&ping.value), ROUNDS);
    CHECK_EQ(atomic_load(&pong.value), ROUNDS);
    CHECK_EQ(atomic_load(&ping.sleepers) & BP_FLAG_SLEEPERS, 0);
    CHECK_EQ(atomic_load(&pong.sleepers) & BP_FLAG_SLEEPERS, 0);
    printf("test-wait: %d rounds of ping-pong, the pair %s\n", ROUNDS,
           !bp_wait_asymmetric() ? "symmetric"
           : refused             ? "asymmetric, membarrier refused (timed sleeps)"
                                 : "asymmetric (membarrier)");
    return 0;
}
