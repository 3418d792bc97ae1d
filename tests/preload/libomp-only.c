/* libomp-only.c: calls of libomp entry points that buddypool does not
 * define (its cancellation-status query under both of its names, and the
 * reset of a thread's mask to the initial one), for the preload tests:
 * they bind to the program's own runtime (libomp), so the one warning
 * names them and is long enough to wrap. Built with clang. Runs one
 * parallel region, on buddypool's pool when preloaded. */
#include <omp.h>
#include <stdio.h>

/* libomp's exports, in no header */
int kmp_get_cancellation_status(int kind);
int kmp_get_cancellation_status_(int *kind);
int kmp_set_thread_affinity_mask_initial(void);

int main(void)
{
    int threads = 0;
#pragma omp parallel reduction(+ : threads)
    threads += 1;
    int kind = 1;
    int a = kmp_get_cancellation_status(1), b = kmp_get_cancellation_status_(&kind);
    int c = kmp_set_thread_affinity_mask_initial();
    /* The values are libomp's own; only that they ran is printed. */
    (void)a, (void)b, (void)c;
    printf("libomp-only entry points called; a region ran: %d\n", threads > 0);
    printf("regions 1\n");
    return 0;
}
