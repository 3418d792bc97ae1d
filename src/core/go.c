/* go.c: how a team's workers are started and how their arrivals are
 * gathered, for a region (fork.c) and for thread 0's call back to help with
 * tasks (taskteam.c). It knows the start block and the members' words
 * (team.h) and the pool's slots (pool.h), and takes from its caller what
 * the join's waits do meanwhile (poll: run a queued task). It also wakes
 * every wait of a team's region for a reason other than its word (a task
 * queued, a cancellation: bp_team_wake_waits), from below the task team
 * and the cancellation, so that neither needs the barrier's file.
 *
 * Fork: thread 0 writes the start block (what to run, the context, the
 * team) in its team (team->go0), copies it to each worker's slot, beside
 * that worker's go flag, and publishes the flags, then checks for sleepers
 * behind one fence. With a binding asked for (OMP_PROC_BIND, OMP_PLACES),
 * the starter also writes each worker's place and place partition for the
 * region's policy (places.c, bp_place_assign) into the worker's slot when
 * they change, binding it there first (bp_pool_bind); the slot keeps what
 * they were computed from (place_at, place_in), so that a team forking
 * region after region with the same placement computes nothing. Without
 * a binding asked for, workers keep the places the pool gave them (their
 * home) while their team fits the CPUs (bp_pool.cpu_budget), and run
 * unbound in a larger team, so that the kernel can balance threads that
 * must share CPUs (pinned, two of them could not leave a CPU they share
 * while another is idle); a system call only when a team's size crosses
 * the CPUs.
 * In a team of BP_TREE_JOIN threads or more the fork is a tree of fan-out
 * BP_JOIN_FANOUT: thread 0 starts only its children (1 to BP_JOIN_FANOUT),
 * and worker i, woken, copies its own block to its children
 * (BP_JOIN_FANOUT * i + 1 on) and starts them before it runs the region, so
 * thread 0 writes a handful of lines instead of one per worker and the
 * start spreads over the team in log4 steps. go_count, the value a slot's
 * go flag was last set to, is written by whoever starts that worker; the
 * joins in between order those writes (each starter saw the last join).
 *
 * Join: workers set arrive; thread 0 waits for them and does not release.
 * In a team of BP_TREE_JOIN threads or more the join is a tree of fan-out
 * BP_JOIN_FANOUT: worker i first waits for its children (BP_JOIN_FANOUT *
 * i + 1 on) and folds what they report (used_shared) into its own slot,
 * then arrives; thread 0 waits for its own children only, so it reads a
 * handful of lines instead of one per worker, and the arrivals of a large
 * team are gathered in parallel (happens-before is transitive: what a
 * grandchild published before its arrive is visible to thread 0 through
 * its parent's). A small team keeps the flat join: a tree's levels would
 * add hand-offs to a join that is one line per worker anyway. The join's
 * loop (bp_join_children) and the tree's shape (bp_go_children) are
 * inline in team.h: the join is on every region's path. */
#include <string.h>

#include "../internal.h"
#include "pool.h"
#include "../prim.h"
#include "team.h"

/* What places.c's bp_place_assign computes a worker's place and partition
 * from, in two words (a slot keeps the last ones: placed_at, placed_in):
 * the worker's number and team size with the policy, never 0 (bit 31), and
 * thread 0's place (-1 up) with the team's partition. Exact: a team has at
 * most BP_MAX_THREADS threads and a list BP_MAX_PLACES places (4096 each),
 * 12 bits of a number, 13 of a size or place, 21 in each field. */
static inline uint64_t place_at(const struct bp_team *team, int tid, int team_size)
{
    _Static_assert(BP_MAX_THREADS <= 4096 && BP_MAX_PLACES <= 4096, "the fields fit");
    return (uint64_t)1 << 31 | (uint64_t)tid << 19 | (uint64_t)team_size << 3 |
           (uint64_t)(team->policy & 7);
}

static inline uint64_t place_in(const struct bp_team *team)
{
    return (uint64_t)(team->place0 + 1) << 42 | (uint64_t)team->part_first << 21 |
           (uint64_t)team->part_count;
}

void bp_fork_children(const struct bp_go *from)
{
    int team_size = from->team_size, end;
    int first = bp_go_children(from->tid, team_size, &end);
    if (first >= end)
        return;
    struct bp_team *team = from->team;
    int inline_ctx = from->ctx == from->inline_ctx;
    for (int i = first; i < end; i++) {
        struct bp_slot *slot = &bp_pool.slots[team->members[i].worker];
        struct bp_go *go = &slot->go;
        go->run = from->run;
        go->ctx = inline_ctx ? memcpy(go->inline_ctx, from->inline_ctx, BP_INLINE_CTX)
                             : from->ctx;
        go->team = team;
        go->tid = i;
        go->team_size = team_size;
        go->epoch_base = from->epoch_base;
        go->level = from->level;
        int part_first = team->part_first, part_count = team->part_count;
        if (bp_config.pin_caller) { /* a binding asked for: each region's own */
            /* computed again only when what it depends on changed: the
             * same team forks with the same placement region after region */
            uint64_t at = place_at(team, i, team_size), in = place_in(team);
            if (slot->placed_at != at || slot->placed_in != in) {
                int place = bp_place_assign(team->policy, team->place0, i, team_size,
                                            &part_first, &part_count);
                if (slot->place != place) /* a system call only when it moves */
                    bp_pool_bind(slot, place);
                slot->placed_at = at;
                slot->placed_in = in;
            } else {
                part_first = slot->part_first;
                part_count = slot->part_count;
            }
        } else if (bp_config.pin) {
            /* the pool's own placement: a team larger than the CPUs runs
             * unbound (every allowed CPU), its workers pinned again when
             * their team fits */
            int place = team_size > bp_pool.cpu_budget ? -1 : slot->home;
            if (__builtin_expect(slot->place != place, 0))
                bp_pool_bind(slot, place);
        }
        if (slot->part_first != part_first || slot->part_count != part_count) {
            slot->part_first = part_first;
            slot->part_count = part_count;
        }
        /* release: publishes the start block and every word its starter
         * saw (thread 0's ICVs and episode words, transitively) */
        bp_flag_publish(&go->flag, ++slot->go_count);
    }
    /* Then the sleepers: one fence for them all (wait.c). */
    bp_flag_publish_fence();
    for (int i = first; i < end; i++)
        bp_flag_wake_sleepers(&bp_pool.slots[team->members[i].worker].go.flag);
}

/* Every word a member of the team may sleep on in a wait of the region:
 * the barrier's rounds, the members' arrive (the join's, a reduction's)
 * and the reductions' release. Here, below the task team and the
 * cancellation that call it, which reach the barrier's file neither. */
void bp_team_wake_waits(struct bp_team *team)
{
    for (int i = 0; i < team->cap * team->nrounds; i++)
        bp_flag_wake_sleepers(&team->rounds[i].flag);
    for (int i = 0; i < team->cap; i++)
        bp_flag_wake_sleepers(&team->members[i].arrive);
    bp_flag_wake_sleepers(&team->release);
}
