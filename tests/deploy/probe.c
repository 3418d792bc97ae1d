/* probe.c: an OpenMP extension library as Python loads one (ctypes, or a
 * Cython module built with gcc -fopenmp): it asks its runtime for the
 * thread count and forks a region that asks for no size. Built with gcc
 * against libgomp, and with clang against libomp (check-threadpoolctl.py). */
#include <omp.h>

int probe_max_threads(void) { return omp_get_max_threads(); }

/* The team a region with no num_threads clause gets. */
int probe_team(void)
{
    int n = 0;
#pragma omp parallel
    {
#pragma omp single
        n = omp_get_num_threads();
    }
    return n;
}
