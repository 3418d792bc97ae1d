/* nested.c: drives nested.mlir, a parallel loop (with a reduction) inside a
 * parallel loop. The outer loop runs on the team; each inner loop must run
 * serially on the OS thread of the outer iteration that started it, as
 * thread 0 of a team of one, and its reduction must be exact. */
#include <stdlib.h>

#include "check.h"
#include "driver.h"

void _mlir_ciface_nested(memref_i64_2d *out, memref_i64_1d *rowsum);

/* The callbacks the kernel declares as func.func private. */
void visit_outer(int64_t i);
void visit_inner(int64_t i, int64_t j);

static struct drv_visit *outer, *inner;
static int64_t rows_n, cols_n;

void visit_outer(int64_t i)
{
    CHECK_GE(i, 0);
    CHECK_LT(i, rows_n);
    drv_visit(&outer[i]);
}

void visit_inner(int64_t i, int64_t j)
{
    CHECK_GE(i, 0);
    CHECK_LT(i, rows_n);
    CHECK_GE(j, 0);
    CHECK_LT(j, cols_n);
    /* the outer iteration that started this loop has already been visited,
     * on this very thread */
    CHECK_EQ(atomic_load_explicit(&outer[i].hits, memory_order_relaxed), 1);
    CHECK_EQ(atomic_load_explicit(&outer[i].os_thread, memory_order_relaxed),
             drv_os_thread());
    drv_visit(&inner[i * cols_n + j]);
}

static void run(int64_t *buf, int64_t *sums, int64_t rows, int64_t cols, int team)
{
    for (int64_t k = 0; k < rows * cols; k++)
        buf[k] = -7;
    for (int64_t i = 0; i < rows; i++)
        sums[i] = -7;
    memref_i64_2d out = {buf, buf, 0, {rows, cols}, {cols, 1}};
    memref_i64_1d rowsum = {sums, sums, 0, {rows}, {1}};
    rows_n = rows;
    cols_n = cols;
    drv_clear(outer, rows);
    drv_clear(inner, rows * cols);
    _mlir_ciface_nested(&out, &rowsum);
    drv_check_outside();

    drv_check_team(outer, rows, team);
    for (int64_t i = 0; i < rows; i++) {
        CHECK_EQ(sums[i], (i + 1) * (cols * (cols - 1) / 2));
        int os = atomic_load_explicit(&outer[i].os_thread, memory_order_relaxed);
        for (int64_t j = 0; j < cols; j++) {
            const struct drv_visit *v = &inner[i * cols + j];
            CHECK_EQ(buf[i * cols + j], j);
            CHECK_EQ(atomic_load_explicit(&v->hits, memory_order_relaxed), 1);
            CHECK_EQ(atomic_load_explicit(&v->omp_thread, memory_order_relaxed), 0);
            CHECK_EQ(atomic_load_explicit(&v->omp_threads, memory_order_relaxed), 1);
            CHECK_EQ(atomic_load_explicit(&v->os_thread, memory_order_relaxed), os);
        }
    }
}

int main(int argc, char **argv)
{
    drv_os_thread(); /* the main thread is OS thread 0 */
    int team = drv_expected_team(DRV_NUM_THREADS);
    int calls = drv_calls(argc, argv, 200);
    int64_t max_rows = 2 * (int64_t)team + 6, max_cols = 41;
    int64_t *buf = malloc(sizeof(int64_t) * (size_t)(max_rows * max_cols));
    int64_t *sums = malloc(sizeof(int64_t) * (size_t)max_rows);
    outer = malloc(sizeof *outer * (size_t)max_rows);
    inner = malloc(sizeof *inner * (size_t)(max_rows * max_cols));
    CHECK(buf != NULL && sums != NULL && outer != NULL && inner != NULL);

    drv_phase("repeated calls with more rows than threads");
    for (int c = 0; c < calls; c++)
        run(buf, sums, 2 * team + 3 + c % 3, 37 + c % 5, team);
    drv_phase("edge sizes: one row, empty inner loops, no rows");
    for (int r = 0; r < 3; r++) {
        run(buf, sums, 1, 5, team);
        run(buf, sums, team + 1, 0, team);
        run(buf, sums, 0, 5, team);
    }
    drv_phase("counting OS threads");
    CHECK_EQ(drv_os_threads_seen(), team); /* the pool kept its threads */
    drv_phase(NULL);

    printf("mlir nested (num_threads %d): %d calls, team of %d, inner loops serial on "
           "their outer iteration's thread\n", DRV_NUM_THREADS, calls, team);
    free(buf);
    free(sums);
    free(outer);
    free(inner);
    return 0;
}
