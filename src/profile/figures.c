/* figures.c: the figures the text report and the JSON profile both derive
 * from a row of the profile: its wall-time distribution (BP_WALL_BUCKETS
 * buckets, 8 per octave of nanoseconds) and quantiles, a thread's figures,
 * the mean wake-up latency. */
#include "profile.h"

int bp_wall_bucket(int64_t ns)
{
    if (ns < 1)
        return 0;
    uint64_t v = (uint64_t)ns;
    int octave = 63 - __builtin_clzll(v);
    /* the three bits after the leading one */
    int frac = octave >= 3 ? (int)((v >> (octave - 3)) & 7) : (int)((v << (3 - octave)) & 7);
    return octave * 8 + frac;
}

int64_t bp_wall_bucket_mid(int b)
{
    /* 2^octave * (1 + (frac + 0.5) / 8) */
    int octave = b / 8, frac = b % 8;
    double v = (double)((uint64_t)1 << octave) * (1.0 + (frac + 0.5) / 8.0);
    return v > 9.2e18 ? INT64_MAX : (int64_t)v;
}

/* The wall time below which a share q of the row's calls fall (the middle
 * of its bucket: within 6% of the true value); -1 without a distribution. */
int64_t bp_wall_quantile(const struct bp_profile_row *r, double q)
{
    if (r->wall_hist == NULL || r->calls == 0)
        return -1;
    uint64_t want = (uint64_t)((double)r->calls * q + 0.999999), seen = 0;
    if (want < 1)
        want = 1;
    for (int b = 0; b < BP_WALL_BUCKETS; b++) {
        seen += r->wall_hist[b];
        if (seen >= want)
            return bp_wall_bucket_mid(b);
    }
    return -1;
}

/* Thread k's figures in row r (zero where its teams were smaller). */
struct bp_thread_stats bp_thread_stats_of(const struct bp_profile_row *r, int k)
{
    struct bp_thread_stats none = {0};
    return k < r->per_thread_n ? r->per_thread[k] : none;
}

int64_t bp_wake_mean(const struct bp_profile_totals *t)
{
    return t->woken ? t->wake_sum_ns / (int64_t)t->woken : 0;
}
