/* cancel-plain-barrier.c: under OMP_CANCELLATION=true every barrier is a
 * cancellation point (OpenMP 5.2, 18.2), also one the compiler emitted as
 * a plain barrier (clang does so for a loop's implicit barrier inside a
 * taskgroup: __kmpc_barrier, not __kmpc_cancel_barrier; gcc's GOMP_barrier
 * is the same entry point without the cancel). Thread 0 cancels the
 * region and leaves it; the others then meet two plain barriers, called
 * here through the ABI's own entry points so that the shape does not
 * depend on the compiler. Thread 0 never arrives at them: a barrier that
 * waited for it would hang the region (libomp does, on clang's shape),
 * so each must let its thread go on to the region's end, where the join
 * gathers everyone. A watchdog ends a hung run after 20 s with a message.
 * Built by gcc (GOMP_barrier) and clang (__kmpc_barrier). */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __clang__
typedef struct ident ident_t;
void __kmpc_barrier(ident_t *loc, int gtid);
int __kmpc_global_thread_num(ident_t *loc);
static void plain_barrier(void) { __kmpc_barrier(NULL, __kmpc_global_thread_num(NULL)); }
#else
void GOMP_barrier(void);
static void plain_barrier(void) { GOMP_barrier(); }
#endif

static void hung(int sig)
{
    (void)sig;
    static const char msg[] = "cancel-plain-barrier: a plain barrier of a cancelled region hung\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(2);
}

int main(void)
{
    if (!omp_get_cancellation()) {
        fprintf(stderr, "cancel-plain-barrier: needs OMP_CANCELLATION=true\n");
        return 1;
    }
    signal(SIGALRM, hung);
    alarm(20);
    int team = 0, passed = 0, bad = 0;
    for (int round = 0; round < 50; round++) {
        int left = 0;
#pragma omp parallel shared(team, left, bad)
        {
            /* no barrier before the plain ones: each other thread meets
             * them whatever thread 0 has done by then */
            int tid = omp_get_thread_num();
            if (tid == 0) {
                team = omp_get_num_threads();
#pragma omp cancel parallel
                bad = 1; /* cancel-var is true: the cancel leaves the region */
            }
            plain_barrier();
            plain_barrier();
#pragma omp atomic
            left++;
        }
        if (left != team - 1) {
            fprintf(stderr, "round %d: %d of the %d others left the barriers\n", round, left,
                    team - 1);
            bad = 1;
        }
        passed += !bad;
    }
    printf("cancel-plain-barrier: %d threads, %d of 50 rounds passed\n", team, passed);
    return passed == 50 ? 0 : 1;
}
