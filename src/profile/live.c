/* live.c: the live counters, for profiling a process that does not exit (a
 * server; the dump signal is dump.c's). The whole run's table is mirrored,
 * row by row, into a file of /dev/shm, or of BUDDY_THREAD_POOL_LIVE_DIR
 * (docs/profile-format.md gives its layout) that `buddypool top
 * PID` maps and reads once a second: calls, wall, gaps and waits per
 * function, updated after each region with plain 8-byte stores (a reader
 * may see a region half counted, never a torn number; no ptrace, no
 * signal). The file is made when profiling starts and removed when it ends
 * (exit, the library's unload, an ending signal: dump.c); a dump leaves it.
 * A child of fork() makes its own at its first region (one that only execs
 * leaves nothing behind).
 *
 * Leftovers. A process killed by SIGKILL cannot remove its file. Each
 * process holds a shared flock on its file for as long as it lives (the
 * descriptor stays open, close-on-exec), so a file nobody holds a lock on,
 * whose process is gone too, is a leftover: the next profiled process
 * removes the leftovers it finds in that directory and says so, after `buddypool
 * report --live FILE` had the chance to read them. A process that still
 * runs keeps its file, even one of a PID namespace where its pid means
 * nothing (its lock tells), and so does a file from a buddypool that took
 * no lock, whose process still runs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"

enum { HEADER = 128, ROW = 256, NAME = 152, MODULE = 64 };

struct live_header {
    char magic[8];
    uint32_t header_size, row_size, rows_cap;
    _Atomic uint32_t threads;
    _Atomic uint64_t rows;
    _Atomic int64_t start_ns, updated_ns;
    _Atomic uint64_t regions;
    _Atomic int64_t regions_ns, gaps_ns, wait_ns;
    _Atomic uint64_t barriers, resets;
    int32_t pid;
};
struct live_row {
    _Atomic uint64_t calls;
    _Atomic int64_t wall_ns, gap_before_ns, wait_ns;
    _Atomic uint64_t barriers;
    char name[NAME];
    char module[MODULE];
};
_Static_assert(sizeof(struct live_header) <= HEADER, "the live header fits its 128 bytes");
_Static_assert(sizeof(struct live_row) == ROW, "a live row is 256 bytes");
_Static_assert(offsetof(struct live_header, pid) == 96, "pid at 96 (docs/profile-format.md)");
_Static_assert(offsetof(struct live_row, module) == 192, "module at 192");

static struct {
    struct live_header *h;
    size_t bytes, rows;
    char name[4200]; /* its path: /dev/shm, or BUDDY_THREAD_POOL_LIVE_DIR */
    int fd; /* open, with a shared flock, while the file is this process's */
} live = {.fd = -1};

#define RELAXED memory_order_relaxed

static struct live_row *row_at(size_t i)
{
    return (struct live_row *)((char *)live.h + HEADER + i * ROW);
}

/* Remove the leftovers of processes that ended without removing their
 * files (see the top of the file), saying so. */
static const char *live_dir(void)
{
    return bp_config.live_dir != NULL ? bp_config.live_dir : "/dev/shm";
}

static void remove_leftovers(void)
{
    DIR *d = opendir(live_dir());
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        if (strncmp(e->d_name, "buddypool-", 10) != 0)
            continue;
        long pid = strtol(e->d_name + 10, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == (long)getpid() ||
            !(kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dirfd(d), e->d_name, 0) == 0)
            bp_warn("profile: removed %s/%s, the live counters left by process %ld, "
                    "which ended without removing them (killed?)", live_dir(), e->d_name, pid);
        close(fd); /* and its lock */
    }
    closedir(d);
}

void bp_live_open(size_t rows)
{
    remove_leftovers();
    snprintf(live.name, sizeof live.name, "%s/buddypool-%ld", live_dir(), (long)getpid());
    int fd = open(live.name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return; /* no /dev/shm: `buddypool top` says so */
    (void)flock(fd, LOCK_SH); /* held while this process lives: not a leftover */
    size_t bytes = HEADER + rows * ROW;
    void *p = MAP_FAILED;
    /* the pages taken now: a full /dev/shm must not fault a store later */
    if (posix_fallocate(fd, 0, (off_t)bytes) == 0)
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        unlink(live.name);
        return;
    }
    live.fd = fd;
    live.h = p;
    live.bytes = bytes;
    live.rows = rows;
    live.h->header_size = HEADER;
    live.h->row_size = ROW;
    live.h->rows_cap = (uint32_t)rows;
    live.h->pid = (int32_t)getpid();
    /* the magic last: a reader that sees it sees the sizes */
    atomic_thread_fence(memory_order_release);
    memcpy(live.h->magic, "BPLIVE1", 8);
}

static void close_fd(void)
{
    if (live.fd >= 0)
        close(live.fd);
    live.fd = -1;
}

void bp_live_close(void)
{
    if (live.h == NULL)
        return;
    munmap(live.h, live.bytes);
    unlink(live.name);
    close_fd();
    live.h = NULL;
}

void bp_live_unlink(void)
{
    if (live.h != NULL)
        unlink(live.name); /* the mapping stays: a region may still write it */
}

void bp_live_fork_child(void)
{
    if (live.h == NULL)
        return;
    munmap(live.h, live.bytes); /* the parent's, which it goes on writing */
    close_fd(); /* the child's copy: the parent's lock stays */
    live.h = NULL;
}

static void copy_cut(char *to, size_t size, const char *from)
{
    size_t n = from ? strlen(from) : 0;
    if (n >= size)
        n = size - 1;
    memcpy(to, from ? from : "", n);
    to[n] = '\0';
}

int bp_live_row(size_t index, const char *name, const char *module)
{
    if (live.h == NULL || index >= live.rows)
        return -1;
    struct live_row *r = row_at(index);
    copy_cut(r->name, NAME, name);
    copy_cut(r->module, MODULE, bp_base_name(module));
    /* release: the name before the row is counted */
    if (index < live.rows - 1 &&
        index + 1 > atomic_load_explicit(&live.h->rows, RELAXED))
        atomic_store_explicit(&live.h->rows, index + 1, memory_order_release);
    return (int)index;
}

void bp_live_update(int index, const struct bp_profile_row *r,
                    const struct bp_profile_totals *tot, int64_t first_start_ns,
                    int64_t now_ns)
{
    if (live.h == NULL)
        return;
    if (index >= 0) {
        struct live_row *l = row_at((size_t)index);
        atomic_store_explicit(&l->calls, r->calls, RELAXED);
        atomic_store_explicit(&l->wall_ns, r->wall_ns, RELAXED);
        atomic_store_explicit(&l->gap_before_ns, r->gap_before_ns, RELAXED);
        atomic_store_explicit(&l->wait_ns, r->wait_ns, RELAXED);
        atomic_store_explicit(&l->barriers, r->barriers, RELAXED);
    }
    struct live_header *h = live.h;
    if (atomic_load_explicit(&h->start_ns, RELAXED) == 0)
        atomic_store_explicit(&h->start_ns, first_start_ns, RELAXED);
    atomic_store_explicit(&h->threads, (uint32_t)tot->threads, RELAXED);
    atomic_store_explicit(&h->regions, tot->regions, RELAXED);
    atomic_store_explicit(&h->regions_ns, tot->regions_ns, RELAXED);
    atomic_store_explicit(&h->gaps_ns, tot->gaps_ns, RELAXED);
    atomic_store_explicit(&h->wait_ns, tot->wait_ns, RELAXED);
    atomic_store_explicit(&h->barriers, tot->barriers, RELAXED);
    atomic_store_explicit(&h->updated_ns, now_ns, RELAXED);
}

void bp_live_reset(void)
{
    if (live.h == NULL)
        return;
    memset((char *)live.h + HEADER, 0, live.rows * ROW);
    struct live_header *h = live.h;
    atomic_store_explicit(&h->rows, 0, RELAXED);
    atomic_store_explicit(&h->start_ns, 0, RELAXED);
    atomic_store_explicit(&h->threads, 0, RELAXED);
    atomic_store_explicit(&h->regions, 0, RELAXED);
    atomic_store_explicit(&h->regions_ns, 0, RELAXED);
    atomic_store_explicit(&h->gaps_ns, 0, RELAXED);
    atomic_store_explicit(&h->wait_ns, 0, RELAXED);
    atomic_store_explicit(&h->barriers, 0, RELAXED);
    atomic_fetch_add_explicit(&live.h->resets, 1, RELAXED);
}
