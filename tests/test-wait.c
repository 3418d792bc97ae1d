/* test-wait.c: the waits' Dekker pair alone (src/wait.c). Two threads play
 * ping-pong on two flags, ROUNDS times, with a spin of 1 us before a wait
 * sleeps (the first look at the clock comes after 256 reads, some 10 us);
 * before each set the setter works a varying while (0-25 us), so that sets
 * fall before, during and after its partner's move to sleep. A wake-up
 * lost to a setter that did not see a sleeper hangs the game, and ctest's
 * timeout reports it. Run once with the pair the machine allows
 * (asymmetric with membarrier) and once symmetric (`symmetric`).
 * The window a broken pair would open is short (on x86, a store waiting in
 * the setter's store buffer while its load of `sleepers` goes ahead, a few
 * hundred nanoseconds), so this exercises the sleep path in both pairs but
 * may not catch every broken one: without the sleeper's membarrier it ran
 * 300000 rounds unharmed on a 2-CPU guest. Not timed. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    int symmetric = argc > 1 && strcmp(argv[1], "symmetric") == 0;
    bp_config_load();
    bp_config.spin_ns = 1000; /* sleep after 1 us */
    bp_wait_choose(!symmetric);
    if (symmetric)
        CHECK_EQ(bp_wait_asymmetric(), 0);
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
    CHECK_EQ(atomic_load(&ping.sleepers), 0);
    CHECK_EQ(atomic_load(&pong.sleepers), 0);
    printf("test-wait: %d rounds of ping-pong, the pair %s\n", ROUNDS,
           bp_wait_asymmetric() ? "asymmetric (membarrier)" : "symmetric");
    return 0;
}
