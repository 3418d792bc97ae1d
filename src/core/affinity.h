/* affinity.h: the affinity format and OMP_DISPLAY_AFFINITY
 * (affinity.c). */
#ifndef BUDDYPOOL_AFFINITY_H
#define BUDDYPOOL_AFFINITY_H

#include "env.h"

struct bp_thread;

/* affinity-format-var (OMP_AFFINITY_FORMAT, omp_set_affinity_format). */
const char *bp_affinity_format_var(void);
/* OMP_DISPLAY_AFFINITY: t has entered a region as one of its threads. */
void bp_affinity_region(struct bp_thread *t);
/* The region's code is clang's: the display goes to stdout, as libomp's
 * (a read of a word that is written once). */
void bp_affinity_clang(void);
static inline void bp_display_affinity(struct bp_thread *t)
{
    if (__builtin_expect(bp_config.display_affinity, 0))
        bp_affinity_region(t);
}

#endif
