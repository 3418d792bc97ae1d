/* wait.h: how a thread waits for a word to change, and the lock
 * word (wait.c). */
#ifndef BUDDYPOOL_WAIT_H
#define BUDDYPOOL_WAIT_H

#include <stdatomic.h>
#include <stdint.h>

/* A 32-bit word that one thread sets and others wait for. `value` only ever
 * moves forward to the value its waiters wait for. `sleepers` is the word
 * its waiters sleep on: its low BP_FLAG_SLEEPERS bits count them, so a
 * setter makes a system call only when somebody sleeps, and a waker adds
 * BP_FLAG_BELL before it wakes them, so that a sleeper that read the word
 * before the wake does not go to sleep after it (wait.c). */
struct bp_flag {
    _Atomic uint32_t value;
    _Atomic uint32_t sleepers;
};
#define BP_FLAG_SLEEPERS 0xffffu
#define BP_FLAG_BELL 0x10000u

/* What a wait that runs tasks watches (bp_flag_wait_poll): `on` is
 * non-zero while the team may have tasks to run, and `sleepers` counts
 * such waits asleep, on their flags. Whoever makes work appear raises the
 * watch (bp_watch_raise) and, when that says waits are asleep, wakes the
 * flags they may sleep on (bp_flag_wake_sleepers): they then poll. */
struct bp_watch {
    _Atomic int on;
    _Atomic uint32_t sleepers;
};
/* Set w->on to 1, ordered before the read of its sleepers as a flag's
 * store is before its sleepers' (the Dekker pair, wait.c): 1 when waits
 * watching it may be asleep. */
int bp_watch_raise(struct bp_watch *w);

/* Set while the running team has more threads than allowed CPUs: waiters
 * then yield from the start, since the thread they wait for may need their
 * CPU. */
extern _Atomic int bp_oversubscribed;
/* The calling thread always waits politely (yields from the start), set for
 * a worker that shares its CPU with another pool thread. */
void bp_wait_set_polite(int polite);

/* Wait until f->value == target (acquire): spin with the pause hint, yield
 * after a while (at once when oversubscribed), sleep on the futex after
 * bp_config.spin_ns. */
void bp_flag_wait(struct bp_flag *f, uint32_t target);
/* The same, until f->value is target or past it (wrapping order): for a
 * flag whose setter may move on by one before this waiter looks. */
void bp_flag_wait_reached(struct bp_flag *f, uint32_t target);
/* Either wait (reached: the second), which meanwhile calls poll(arg)
 * whenever watch->on is non-zero, and does not sleep while it is: a
 * barrier or join runs queued tasks while it waits (task.c). One asleep
 * when the watch is raised is woken and polls again. */
void bp_flag_wait_poll(struct bp_flag *f, uint32_t target, int reached, struct bp_watch *watch,
                       int (*poll)(void *), void *arg);
/* bp_flag_wait_poll (reached) that gives up once *stop is non-zero: 1 when
 * the flag reached target, 0 when stopped. Whoever sets *stop (seq_cst)
 * then calls bp_flag_wake_sleepers on the flag. */
int bp_flag_wait_cancel(struct bp_flag *f, uint32_t target, struct bp_watch *watch,
                        int (*poll)(void *), void *arg, const _Atomic uint64_t *stop);
/* Store value (release, ordered before the sleepers check: see wait.c),
 * then wake sleepers if there are any. */
void bp_flag_set(struct bp_flag *f, uint32_t value);
/* bp_flag_set in two halves for setting many flags at once: publish stores
 * the value (release); after them all, the caller calls
 * bp_flag_publish_fence once and bp_flag_wake_sleepers on each flag. */
void bp_flag_publish(struct bp_flag *f, uint32_t value);
void bp_flag_publish_fence(void);
void bp_flag_wake_sleepers(struct bp_flag *f);
/* Choose the setters' and sleepers' pair (wait.c), once, before any flag is
 * used: asymmetric when waits spin (spins), the kernel has membarrier and
 * the pair pays on this processor (or BUDDY_THREAD_POOL_WAIT_PAIR asks).
 * bp_wait_asymmetric says which was chosen. */
void bp_wait_choose(int spins);
int bp_wait_asymmetric(void);

/* Whether the calling thread is contended (kept from its CPU, wait.c):
 * its waits then spin briefly before they sleep. */
int bp_wait_contended(void);
/* The rule: whether a thread is contended after a window of wall_ns in
 * which it waited delay_ns in a run queue, given whether it was before. */
int bp_contention_judge(int contended, int64_t delay_ns, int64_t wall_ns);

/* In the child of fork(): make the portable futex (prim.h) usable again. */
void bp_wait_fork_child(void);

/* A mutex in one 32-bit word (0 unlocked, 1 locked, 2 locked with sleepers),
 * usable inside zero-initialised storage such as a kmp_critical_name. */
void bp_lock(_Atomic uint32_t *word);
void bp_unlock(_Atomic uint32_t *word);
/* 1 and the lock taken, or 0 when it is held. */
int bp_trylock(_Atomic uint32_t *word);
/* Waiting for a lock to be free before sleeping on it: each call pauses
 * twice as long as the one before, up to a bound, and returns 1; it returns
 * 0 once the wait policy's spin time is spent (then sleep). Start from {0}. */
struct bp_lock_backoff {
    int backoff, yielding;
    int64_t start_ns;
};
int bp_lock_backoff(struct bp_lock_backoff *b);
/* Wait while *slot is busy, as a lock waits (backing off, then yielding):
 * for a pointer another thread publishes after a short piece of work.
 * Its value then. */
void *bp_wait_while(_Atomic(void *) *slot, void *busy);
/* The same until *word is value (acquire), for a word with no futex. */
void bp_wait_word(const _Atomic uint32_t *word, uint32_t value);

#endif
