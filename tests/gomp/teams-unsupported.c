/* teams-unsupported.c: the host teams construct, which buddypool does not
 * run: built by clang it must stop at its first entry point
 * (__kmpc_push_num_teams, or __kmpc_fork_teams) with a message
 * (check-unsupported.sh), never run wrongly or spin. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int n = 0;
#pragma omp teams num_teams(2)
    {
#pragma omp atomic
        n++;
    }
    printf("teams ran: %d\n", n);
    return 0;
}
