/* par2d.c: drives par2d.mlir, a 2-D parallel loop over rows 2, 5, 8, ... and
 * columns 1, 3, 5, ... that the lowering collapses into one iteration space,
 * many times over with varying sizes: results exact, untouched elements
 * untouched, every iteration once, the team as expected. */
#include <stdlib.h>

#include "check.h"
#include "driver.h"

void _mlir_ciface_par2d(memref_i64_2d *out);

#define ROW_LB 2
#define ROW_STEP 3
#define COL_LB 1
#define COL_STEP 2

/* The callbacks the kernel declares as func.func private. */
void visit2(int64_t i, int64_t j);

static struct drv_visit *visits;
static int64_t rows_n, cols_n, col_trips;

/* Called by the kernel for every (i, j); records it at its iteration number
 * in row-major order of the collapsed nest. */
void visit2(int64_t i, int64_t j)
{
    CHECK_GE(i, ROW_LB);
    CHECK_LT(i, rows_n);
    CHECK_EQ((i - ROW_LB) % ROW_STEP, 0);
    CHECK_GE(j, COL_LB);
    CHECK_LT(j, cols_n);
    CHECK_EQ((j - COL_LB) % COL_STEP, 0);
    drv_visit(&visits[(i - ROW_LB) / ROW_STEP * col_trips + (j - COL_LB) / COL_STEP]);
}

static int64_t trips(int64_t lb, int64_t ub, int64_t step)
{
    return ub > lb ? (ub - lb + step - 1) / step : 0;
}

static void run(int64_t *buf, int64_t rows, int64_t cols, int team)
{
    int64_t row_trips = trips(ROW_LB, rows, ROW_STEP);
    int64_t n = row_trips * trips(COL_LB, cols, COL_STEP);
    for (int64_t k = 0; k < rows * cols; k++)
        buf[k] = -7;
    memref_i64_2d out = {buf, buf, 0, {rows, cols}, {cols, 1}};
    rows_n = rows;
    cols_n = cols;
    col_trips = trips(COL_LB, cols, COL_STEP);
    drv_clear(visits, n);
    _mlir_ciface_par2d(&out);
    drv_check_outside();
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            int inside = i >= ROW_LB && (i - ROW_LB) % ROW_STEP == 0 && j >= COL_LB &&
                         (j - COL_LB) % COL_STEP == 0;
            CHECK_EQ(buf[i * cols + j], inside ? i * 1000 + j : -7);
        }
    drv_check_team(visits, n, team);
}

int main(int argc, char **argv)
{
    drv_os_thread(); /* the main thread is OS thread 0 */
    int team = drv_expected_team(DRV_NUM_THREADS);
    int calls = drv_calls(argc, argv, 200);
    /* Up to 8 row trips and team + 8 column trips; sizes vary so that upper
     * bounds fall on and off the steps. */
    int64_t max_rows = ROW_LB + ROW_STEP * 8, max_cols = COL_LB + COL_STEP * (team + 8);
    int64_t *buf = malloc(sizeof(int64_t) * (size_t)(max_rows * max_cols));
    visits = malloc(sizeof *visits * (size_t)(8 * (team + 8)));
    CHECK(buf != NULL && visits != NULL);

    drv_phase("repeated calls with at least team iterations");
    for (int c = 0; c < calls; c++) {
        int64_t row_trips = 4 + c % 5, col_trips_want = team + 3 + c % 6;
        int64_t rows = ROW_LB + ROW_STEP * (row_trips - 1) + 1 + c % ROW_STEP;
        int64_t cols = COL_LB + COL_STEP * (col_trips_want - 1) + 1 + c % COL_STEP;
        run(buf, rows, cols, team);
    }
    drv_phase("edge sizes: one iteration, one row, one column, no rows, no columns");
    for (int r = 0; r < 3; r++) {
        run(buf, ROW_LB + 1, COL_LB + 1, team);
        run(buf, ROW_LB + 1, COL_LB + COL_STEP * (team + 1), team);
        run(buf, ROW_LB + ROW_STEP * 5, COL_LB + 1, team);
        run(buf, ROW_LB, COL_LB + 5, team);
        run(buf, ROW_LB + 5, COL_LB, team);
    }
    drv_phase("counting OS threads");
    CHECK_EQ(drv_os_threads_seen(), team); /* the pool kept its threads */
    drv_phase(NULL);

    printf("mlir par2d (num_threads %d): %d calls, team of %d, all iterations once\n",
           DRV_NUM_THREADS, calls, team);
    free(buf);
    free(visits);
    return 0;
}
