/* racy.c: a data race Archer must report (tests/archer): both threads of a
 * region update one shared variable with nothing to order them. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int shared = 0;
#pragma omp parallel num_threads(2)
    shared += omp_get_thread_num() + 1; /* the race */
    printf("racy: %d\n", shared);
    return 0;
}
