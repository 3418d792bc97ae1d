/* cli.h: command-line parsing shared by the OpenMP programs that CMake builds
 * with custom commands rather than against the library (bench/overhead,
 * bench/idle, tests/stress); each includes it by a relative path. */
#ifndef BUDDYPOOL_BENCH_CLI_H
#define BUDDYPOOL_BENCH_CLI_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The integer `value` of `flag`, which must lie in lo..hi; otherwise a
 * message naming program, flag, value and range, and exit status 2. A NULL
 * value is a flag given last without one. */
static inline long cli_parse_long(const char *program, const char *flag, const char *value,
                                  long lo, long hi)
{
    char *end;
    errno = 0;
    long v = value != NULL ? strtol(value, &end, 10) : 0;
    if (value == NULL || errno != 0 || end == value || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "%s: bad value for %s: '%s' (want an integer from %ld to %ld)\n",
                program, flag, value != NULL ? value : "", lo, hi);
        exit(2);
    }
    return v;
}

#endif
