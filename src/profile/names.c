/* names.c: how the profile names what it shows: a region function or a
 * call site as symbol+0xoffset (dladdr), or module+0xoffset (offset from the
 * module's base) when no exported symbol covers the address, as for a local
 * outlined function; a path's file name; a string as JSON. Shared by the
 * report, the JSON profile, the trace, the call sites and the live
 * counters, and calling none of them. */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

const char *bp_base_name(const char *path)
{
    const char *base = path ? strrchr(path, '/') : NULL;
    return base ? base + 1 : path ? path : "";
}

void bp_name_function(const void *fn, char **name, char **module, uintptr_t *offset)
{
    Dl_info info;
    char buf[64];
    *name = *module = NULL;
    *offset = 0;
    if (dladdr(fn, &info) == 0) {
        snprintf(buf, sizeof buf, "0x%" PRIxPTR "+0x0", (uintptr_t)fn);
        *name = strdup(buf);
        *module = strdup("");
        return;
    }
    const char *path = info.dli_fname ? info.dli_fname : "";
    *offset = (uintptr_t)fn - (uintptr_t)info.dli_fbase;
    const char *base = bp_base_name(path);
    const char *sym = info.dli_sname;
    uintptr_t from = (uintptr_t)info.dli_saddr;
    if (sym == NULL || info.dli_saddr == NULL) {
        sym = base[0] ? base : "?"; /* a local function: module+offset */
        from = (uintptr_t)info.dli_fbase;
    }
    snprintf(buf, sizeof buf, "+0x%" PRIxPTR, (uintptr_t)fn - from);
    size_t len = strlen(sym) + strlen(buf) + 1;
    *name = malloc(len);
    if (*name != NULL)
        snprintf(*name, len, "%s%s", sym, buf); /* never cut: the offset stays */
    *module = strdup(path);
}

/* Length of the valid UTF-8 sequence at s, or 0 if there is none. */
static int utf8_len(const unsigned char *s)
{
    if (s[0] > 0xf4)
        return 0;
    int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    /* no overlong forms, no surrogates, nothing past U+10FFFF (RFC 3629) */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

void bp_json_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    fputc('"', f);
    while (*s) {
        if (*s == '"' || *s == '\\') {
            fprintf(f, "\\%c", *s++);
        } else if (*s < 0x20) {
            fprintf(f, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, f);
        } else {
            int n = utf8_len(s);
            if (n == 0) {
                fputs("\\ufffd", f);
                s++;
            } else {
                fwrite(s, 1, (size_t)n, f);
                s += n;
            }
        }
    }
    fputc('"', f);
}
