/* openmp-program.c: an OpenMP program as a user writes one, with no
 * knowledge of buddypool. It runs a parallel region with a worksharing
 * loop and a reduction, checks the sum, and prints its team size and the
 * path of every OpenMP runtime it has mapped (libgomp*, libomp*,
 * libbuddypool*, read from /proc/self/maps): the tests compare those paths
 * with the runtime they expect. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

static int is_runtime(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libgomp", 7) == 0 || strncmp(base, "libomp", 6) == 0 ||
           strncmp(base, "libbuddypool", 12) == 0;
}

int main(void)
{
    long sum = 0;
    int team = 0;
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp single
        team = omp_get_num_threads();
#pragma omp for
        for (int i = 0; i < 1000; i++)
            sum += i;
    }
    if (sum != 499500) {
        fprintf(stderr, "openmp-program: sum %ld, expected 499500\n", sum);
        return 1;
    }
    printf("team %d\n", team);
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) {
        perror("openmp-program: /proc/self/maps");
        return 1;
    }
    char line[4096], last[4096] = "";
    while (fgets(line, sizeof line, maps) != NULL) {
        char *path = strchr(line, '/');
        if (path == NULL)
            continue;
        path[strcspn(path, "\n")] = '\0';
        /* a file's mappings are adjacent: print each path once */
        if (is_runtime(path) && strcmp(path, last) != 0) {
            printf("mapped %s\n", path);
            snprintf(last, sizeof last, "%s", path);
        }
    }
    fclose(maps);
    return 0;
}
