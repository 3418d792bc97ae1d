/* libomp-only.c: calls of libomp entry points that buddypool does not
 * define (two of its internal exports, which need no set-up: the reduction
 * method of the calling thread, and the insertion of a threadprivate
 * copy), for the preload tests: they bind to the program's own runtime
 * (libomp), so the one warning names them and is long enough to wrap.
 * Built with clang. Runs one parallel region, on buddypool's pool when
 * preloaded. */
#include <omp.h>
#include <stddef.h>
#include <stdio.h>

/* libomp's exports, in no header */
int __kmp_get_reduce_method(void);
void *kmp_threadprivate_insert_private_data(int gtid, void *pc_addr, void *data_addr,
                                            size_t pc_size);

static int variable, copy;

int main(void)
{
    int threads = 0;
#pragma omp parallel reduction(+ : threads)
    threads += 1;
    int a = __kmp_get_reduce_method();
    void *b = kmp_threadprivate_insert_private_data(0, &variable, &copy, sizeof variable);
    /* The values are libomp's own; only that they ran is printed. */
    (void)a, (void)b;
    printf("libomp-only entry points called; a region ran: %d\n", threads > 0);
    printf("regions 1\n");
    return 0;
}
