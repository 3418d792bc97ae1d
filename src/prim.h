/* prim.h: the architecture and OS primitives the pool is built on: a pause
 * hint for spin loops, futex wait/wake, a monotonic clock, and copies and
 * clears of fixed size that compile to plain moves. Each primitive
 * is one #if ladder ending in a portable rung; BP_PORTABLE_PRIMS (CMake's
 * BUDDYPOOL_PORTABLE_PRIMS) forces the portable rungs, so they are tested
 * on machines that have the fast ones. */
#ifndef BUDDYPOOL_PRIM_H
#define BUDDYPOOL_PRIM_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Hot shared words sit alone in 128 bytes: two cache lines, since x86 cores
 * prefetch the adjacent line and would otherwise couple neighbours. */
#define BP_LINE 128

/* Copying and clearing a few hundred bytes of fixed size on a region's
 * path (a thread's team state, an implicit task, a loop's state). gcc -O2
 * (x86-64, generic tuning) expands a memcpy of more than 256 bytes into rep
 * movsq and a memset of more than 64 into rep stosq, whose start-up
 * dominates at these sizes: on the 2-CPU AMD EPYC guest, 15 ns to copy 312
 * bytes or clear 136, against 3.4 and 1.5 ns with moves. In pieces of 128
 * and 64 bytes, with n known when compiling, gcc and clang expand each one
 * into moves and the loop unrolls away. */
static inline void bp_copy_fixed(void *dst, const void *src, size_t n)
{
    for (size_t i = 0; i < n; i += 128)
        __builtin_memcpy((char *)dst + i, (const char *)src + i, n - i < 128 ? n - i : 128);
}
static inline void bp_zero_fixed(void *dst, size_t n)
{
    for (size_t i = 0; i < n; i += 64)
        __builtin_memset((char *)dst + i, 0, n - i < 64 ? n - i : 64);
}

/* What the library exports (every other symbol is hidden: CMake builds
 * with -fvisibility=hidden). */
#define BP_API __attribute__((visibility("default")))

/* cpu_relax: tell the core we are in a spin-wait loop. */
#if defined(BP_PORTABLE_PRIMS)
static inline void bp_cpu_relax(void) { __asm__ __volatile__("" ::: "memory"); }
#elif defined(__x86_64__) || defined(__i386__)
static inline void bp_cpu_relax(void) { __asm__ __volatile__("pause" ::: "memory"); }
#elif defined(__aarch64__) || defined(__arm__)
static inline void bp_cpu_relax(void) { __asm__ __volatile__("yield" ::: "memory"); }
#elif defined(__riscv)
/* Zihintpause's PAUSE (encoded as a FENCE hint: a no-op on cores without it). */
static inline void bp_cpu_relax(void) { __asm__ __volatile__(".insn i 0x0f, 0, x0, x0, 0x010" ::: "memory"); }
#elif defined(__GNUC__)
/* Portable fallback: a compiler barrier, so the loop re-reads memory. */
static inline void bp_cpu_relax(void) { __asm__ __volatile__("" ::: "memory"); }
#else
#error "buddypool: no cpu_relax for this architecture"
#endif

/* futex: sleep while *addr == expected; wake up to n sleepers on addr. */
#if defined(__linux__) && !defined(BP_PORTABLE_PRIMS)
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
static inline void bp_futex_wait(const void *addr, uint32_t expected)
{
    /* EAGAIN (value changed), EINTR (signal) and spurious wakes all return:
     * every caller re-checks its condition in a loop. */
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}
/* The same, for at most ns nanoseconds (ns < 1e9). */
static inline void bp_futex_wait_ns(const void *addr, uint32_t expected, long ns)
{
    struct timespec ts = {0, ns};
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
}
static inline void bp_futex_wake(const void *addr, int n)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}
#else
/* Portable: one process-wide mutex and condition variable (wait.c). Every
 * wake wakes every sleeper, which re-checks its word: slower, still exact. */
void bp_futex_wait(const void *addr, uint32_t expected);
void bp_futex_wait_ns(const void *addr, uint32_t expected, long ns);
void bp_futex_wake(const void *addr, int n);
#endif

/* clock: monotonic nanoseconds. */
#if defined(CLOCK_MONOTONIC)
static inline int64_t bp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
#else
#error "buddypool: no monotonic clock"
#endif

#endif
