/* delay.h: the calibrated busy delay of the EPCC-style benchmarks
 * (bench/overhead, bench/tasks), shared as static functions: each program
 * includes it once by a relative path. */
#ifndef BUDDYPOOL_BENCH_DELAY_H
#define BUDDYPOOL_BENCH_DELAY_H

#include <time.h>

/* Never equal to a delay's sum (sums are >= 0), but the compiler cannot know
 * that: it reads the value at run time. Read-only after start, so threads
 * sharing its cache line do not disturb each other. */
static volatile double delay_never = -1.0;
static volatile double delay_sink;

/* A chain of dependent floating-point additions: the compiler may not
 * reassociate them (no -ffast-math) nor skip them (the sum is tested). */
__attribute__((noinline)) static void delay(long iterations)
{
    double sum = 0.0;
    for (long i = 0; i < iterations; i++)
        sum += (double)i;
    if (sum == delay_never)
        delay_sink = sum;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per call of delay(iterations), called back to back as the
 * reference calls it (the best of a few runs of about a millisecond). */
static double time_delay_call(long iterations)
{
    long calls = 1000000 / (iterations + 10) + 1;
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
        double t0 = now_s();
        for (long c = 0; c < calls; c++)
            delay(iterations);
        double t = (now_s() - t0) / (double)calls;
        if (t < best)
            best = t;
    }
    return best;
}

/* Iterations of delay() that take about delay_ns per call. A long delay gives
 * the time per iteration; short delays called back to back run faster per
 * iteration (the processor overlaps the end of one with the start of the
 * next), so the count is then corrected twice from calls of the real length. */
static long calibrate_delay(long delay_ns)
{
    if (delay_ns == 0)
        return 0;
    const long probe = 1000000;
    double ns_per_iteration = time_delay_call(probe) * 1e9 / (double)probe;
    long n = (long)((double)delay_ns / ns_per_iteration + 0.5);
    for (int k = 0; k < 2; k++) {
        n = n < 1 ? 1 : n;
        double ns = time_delay_call(n) * 1e9;
        n = (long)((double)n * (double)delay_ns / ns + 0.5);
    }
    return n < 1 ? 1 : n;
}

#endif
