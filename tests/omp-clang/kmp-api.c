/* kmp-api.c: the kmp_* extensions of LLVM's omp.h that clang programs call
 * (stack size, block time, library mode, allocation, affinity masks), on
 * buddypool and on libomp, which validates every check. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* libomp's export, in no header */
int kmp_set_thread_affinity_mask_initial(void);

static int failures;
#define EXPECT(cond)                                                                   \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "kmp-api: CHECK failed: %s\n", #cond);                    \
            failures++;                                                                \
        }                                                                              \
    } while (0)

int main(void)
{
    /* before the first region: the workers it starts get this stack */
    kmp_set_stacksize_s((size_t)4 << 20);
    EXPECT(kmp_get_stacksize_s() == (size_t)4 << 20);
    EXPECT(kmp_get_stacksize() == 4 << 20);

    kmp_set_blocktime(0);
    EXPECT(kmp_get_blocktime() == 0);
    int sum = 0;
#pragma omp parallel reduction(+ : sum)
    sum += 1;
    EXPECT(sum == omp_get_max_threads());
    kmp_set_blocktime(50);
    EXPECT(kmp_get_blocktime() == 50);
    /* inside a region too, where thread 0 holds buddypool's pool lock */
    size_t inside = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        inside = kmp_get_stacksize_s();
        kmp_set_blocktime(50);
    }
    EXPECT(inside == (size_t)4 << 20);

    kmp_set_library_turnaround();
    EXPECT(kmp_get_library() == 2);
    kmp_set_library_throughput();
    EXPECT(kmp_get_library() == 3);
    kmp_set_disp_num_buffers(7);
    kmp_set_warnings_off();
    kmp_set_warnings_on();

    char *p = kmp_malloc(100);
    EXPECT(p != NULL);
    memset(p, 7, 100);
    p = kmp_realloc(p, 1000);
    EXPECT(p != NULL && p[99] == 7);
    kmp_free(p);
    int *z = kmp_calloc(10, sizeof(int));
    EXPECT(z != NULL && z[0] == 0 && z[9] == 0);
    kmp_free(z);
    void *a = kmp_aligned_malloc(256, 128);
    EXPECT(a != NULL && (uintptr_t)a % 128 == 0);
    kmp_free(a);

    EXPECT(kmp_get_affinity_max_proc() >= omp_get_num_procs());
    kmp_affinity_mask_t mask;
    kmp_create_affinity_mask(&mask);
    EXPECT(kmp_set_affinity_mask_proc(0, &mask) == 0);
    EXPECT(kmp_get_affinity_mask_proc(0, &mask) == 1);
    EXPECT(kmp_unset_affinity_mask_proc(0, &mask) == 0);
    EXPECT(kmp_get_affinity_mask_proc(0, &mask) == 0);
    EXPECT(kmp_get_affinity(&mask) == 0);
    EXPECT(kmp_get_affinity_mask_proc(sched_getcpu(), &mask) == 1);
    EXPECT(kmp_set_affinity(&mask) == 0); /* the thread's own mask back */

    /* kmp_set_thread_affinity_mask_initial: from one CPU back to every CPU
     * the runtime found at its start (omp_get_num_procs of them) */
    kmp_affinity_mask_t one;
    kmp_create_affinity_mask(&one);
    EXPECT(kmp_set_affinity_mask_proc(sched_getcpu(), &one) == 0);
    EXPECT(kmp_set_affinity(&one) == 0);
    cpu_set_t now;
    EXPECT(sched_getaffinity(0, sizeof now, &now) == 0 && CPU_COUNT(&now) == 1);
    EXPECT(kmp_set_thread_affinity_mask_initial() == 0);
    EXPECT(sched_getaffinity(0, sizeof now, &now) == 0 &&
           CPU_COUNT(&now) == omp_get_num_procs());
    kmp_destroy_affinity_mask(&one);
    EXPECT(kmp_set_affinity(&mask) == 0);
    kmp_destroy_affinity_mask(&mask);

    if (failures) {
        fprintf(stderr, "kmp-api: %d checks failed\n", failures);
        return 1;
    }
    printf("kmp-api: all checks passed\n");
    return 0;
}
