/* stamps.h: time stamps at the four points of a region's fork and join,
 * for bench/segments.py, which inserts them into a copy of the library's
 * sources (never into the library that is built and installed). The
 * processor's time stamp counter (x86) is read at: thread 0 publishing a
 * worker's go (SEG_GO), the worker seeing it (SEG_SEEN), the worker about
 * to store its arrival (SEG_ARRIVE), thread 0 starting to wait for the
 * arrivals (SEG_WAIT) and having seen every one (SEG_JOINED). With one worker (a team of 2) the k-th stamp of each kind
 * belongs to the k-th region. stamps.c prints the median of each segment
 * at exit. */
#ifndef BP_SEGMENT_STAMPS_H
#define BP_SEGMENT_STAMPS_H
#include <x86intrin.h>

enum { SEG_N = 1 << 22 };
extern unsigned long long *seg_go, *seg_seen, *seg_arrive, *seg_wait, *seg_joined;
extern unsigned seg_n_go, seg_n_worker, seg_n_joined;

/* Each kind is written by one thread only: thread 0 (go, wait, joined) or the
 * one worker (seen, arrive); `next` moves that thread's count on. */
#define SEG_STAMP(array, count, next)                                           \
    do {                                                                        \
        if ((count) < SEG_N)                                                    \
            (array)[next] = __rdtsc();                                          \
    } while (0)
#define SEG_GO() SEG_STAMP(seg_go, seg_n_go, seg_n_go++)
#define SEG_SEEN() SEG_STAMP(seg_seen, seg_n_worker, seg_n_worker)
#define SEG_ARRIVE() SEG_STAMP(seg_arrive, seg_n_worker, seg_n_worker++)
#define SEG_WAIT() SEG_STAMP(seg_wait, seg_n_joined, seg_n_joined)
#define SEG_JOINED() SEG_STAMP(seg_joined, seg_n_joined, seg_n_joined++)
#endif
