/* gomp-error-directive.c: the error directive at run time (OpenMP 5.1):
 * severity(warning) shows its message and goes on; severity(fatal), run
 * when the last argument is `fatal`, shows its message and stops the
 * program (check-error-directive.sh). Built by gcc (GOMP_warning,
 * GOMP_error) and clang (__kmpc_error). */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int fatal = argc > 1 && strcmp(argv[argc - 1], "fatal") == 0;
#pragma omp parallel num_threads(1)
    {
#pragma omp error at(execution) severity(warning) message("careful here")
    }
    printf("after the warning\n");
    fflush(stdout);
    if (fatal) {
#pragma omp parallel num_threads(1)
        {
#pragma omp error at(execution) severity(fatal) message("stop here")
        }
    }
    printf("after the fatal error\n");
    return 0;
}
