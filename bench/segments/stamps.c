/* stamps.c: the storage of stamps.h, allocated at load (on the heap, so
 * that the library's static data keeps its layout) and summed up at exit:
 * one line on stderr,
 *   SEGMENTS regions=N go_seen=T seen_arrive=T arrive_joined=T joined_go=T
 *            go_wait=T wait_joined=T region=T
 * each T the median over the regions (the first quarter, the warm-up, left
 * out) in time stamp counter ticks. */
#include <stdio.h>
#include <stdlib.h>

unsigned long long *seg_go, *seg_seen, *seg_arrive, *seg_wait, *seg_joined;
unsigned seg_n_go, seg_n_worker, seg_n_joined;

__attribute__((constructor)) static void seg_init(void)
{
    seg_go = calloc(SEG_N, sizeof *seg_go);
    seg_seen = calloc(SEG_N, sizeof *seg_seen);
    seg_arrive = calloc(SEG_N, sizeof *seg_arrive);
    seg_wait = calloc(SEG_N, sizeof *seg_wait);
    seg_joined = calloc(SEG_N, sizeof *seg_joined);
    if (!seg_go || !seg_seen || !seg_arrive || !seg_wait || !seg_joined) {
        fprintf(stderr, "stamps: out of memory\n");
        exit(1);
    }
}

static int cmp(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static long long median(long long *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp);
    return v[n / 2];
}

__attribute__((destructor)) static void seg_report(void)
{
    unsigned n = seg_n_go < seg_n_worker ? seg_n_go : seg_n_worker;
    if (seg_n_joined < n)
        n = seg_n_joined;
    if (n < 1000) {
        fprintf(stderr, "SEGMENTS too few regions (%u)\n", n);
        return;
    }
    n -= 1; /* the last region has no next go */
    unsigned skip = n / 4, m = n - skip;
    long long *seg[7];
    for (int k = 0; k < 7; k++)
        if ((seg[k] = malloc(sizeof(long long) * m)) == NULL)
            return;
    for (unsigned j = 0; j < m; j++) {
        unsigned i = skip + j;
        seg[0][j] = (long long)(seg_seen[i] - seg_go[i]);
        seg[1][j] = (long long)(seg_arrive[i] - seg_seen[i]);
        seg[2][j] = (long long)(seg_joined[i] - seg_arrive[i]);
        seg[3][j] = (long long)(seg_go[i + 1] - seg_joined[i]);
        seg[4][j] = (long long)(seg_wait[i] - seg_go[i]);
        seg[5][j] = (long long)(seg_joined[i] - seg_wait[i]);
        seg[6][j] = (long long)(seg_go[i + 1] - seg_go[i]);
    }
    fprintf(stderr,
            "SEGMENTS regions=%u go_seen=%lld seen_arrive=%lld arrive_joined=%lld "
            "joined_go=%lld go_wait=%lld wait_joined=%lld region=%lld\n",
            m, median(seg[0], m), median(seg[1], m), median(seg[2], m), median(seg[3], m),
            median(seg[4], m), median(seg[5], m), median(seg[6], m));
}
