/* mask.h: does the calling thread run outside a CPU mask? For the programs
 * that check where a pool's threads run (team.c, mpi-team.c). */
#ifndef BUDDYPOOL_TESTS_MASK_H
#define BUDDYPOOL_TESTS_MASK_H

#include <sched.h>

/* 1 when the calling thread's affinity holds a CPU outside mask, or the
 * CPU it runs on now is outside it (or its affinity cannot be read). */
static inline int outside_mask(const cpu_set_t *mask)
{
    cpu_set_t mine;
    CPU_ZERO(&mine);
    int cpu = sched_getcpu();
    if (sched_getaffinity(0, sizeof mine, &mine) != 0 || (cpu >= 0 && !CPU_ISSET(cpu, mask)))
        return 1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine) && !CPU_ISSET(c, mask))
            return 1;
    return 0;
}

#endif
