/* log.h: the library's messages (log.c), usable from
 * every file: it depends on nothing. */
#ifndef BUDDYPOOL_LOG_H
#define BUDDYPOOL_LOG_H


/* Print one "buddypool: ..." line on stderr. */
void bp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print a message naming what went wrong and abort. */
void bp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
