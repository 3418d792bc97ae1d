/* device-api.c: calls of the OpenMP device and memory API, for the preload
 * tests: buddypool defines them all (target.c), so preloaded they are its
 * own and no warning names them. Built with gcc. Runs no parallel
 * region. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int host = omp_get_initial_device();
    int devices = omp_get_num_devices();
    int dflt = omp_get_default_device();
    omp_set_default_device(dflt);
    int initial = omp_is_initial_device();
    int device_num = omp_get_device_num();
    void *p = omp_target_alloc(64, host);
    int present = p != NULL && omp_target_is_present(p, host);
    if (p != NULL)
        omp_target_free(p, host);
    int teams = omp_get_num_teams(), team = omp_get_team_num();
    int in_final = omp_in_final(), priority = omp_get_max_task_priority();
    int places = omp_get_num_places(), cancel = omp_get_cancellation();
    /* The values differ between runtimes; only that they ran is printed. */
    (void)devices, (void)initial, (void)device_num, (void)present, (void)teams, (void)team;
    (void)in_final, (void)priority, (void)places, (void)cancel;
    printf("device API called\n");
    printf("regions 0\n");
    return 0;
}
