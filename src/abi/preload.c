/* preload.c: the start-up check for `LD_PRELOAD=libbuddypool.so ./program`
 * when the program was linked with another OpenMP runtime: one warning that
 * names the OpenMP entry points the program imports and buddypool lacks.
 *
 * Why preloading works. The dynamic linker binds an undefined symbol to the
 * first object of the global scope that defines it: the program, then the
 * preloaded objects, then the libraries the program needs. buddypool's
 * exported entry points (`__kmpc_*`, `GOMP_*`, `omp_*`) so take the place of
 * libomp's or libgomp's for every object loaded at start-up, and regions run
 * on the pool. What buddypool does not define (tasks, target offload, ...)
 * still binds to the other runtime and runs there, beside the pool, with its
 * own threads and state; the warning says which entry points those are.
 *
 * The check, run by a constructor (in the shared library only: nothing refers
 * to this file, so the static library's users never link it):
 *  1. dl_iterate_phdr walks the loaded objects' names. An object named
 *     libomp.so*, libgomp.so* or libiomp5.so* (or a vendored copy, as
 *     libgomp-<hash>.so*) is another runtime, unless it defines no OpenMP
 *     name: then it is buddypool's drop-in library of that name (drop-in
 *     mode), and what buddypool lacks is answered by nothing at all. None
 *     of either: done; that name check is all a program linked with
 *     buddypool alone pays.
 *  2. A second walk reads each object's dynamic symbol table from memory
 *     (elfsyms.c: PT_DYNAMIC -> DT_SYMTAB, DT_STRTAB; the symbol count from
 *     DT_HASH, or by walking DT_GNU_HASH, or where that hashes nothing from
 *     the table that follows). buddypool's own object, the one holding this
 *     code, gives the OpenMP names it defines; every other object but the
 *     other runtimes gives the OpenMP names it imports (undefined symbols
 *     starting with GOMP_, __kmp, omp_ or kmp_).
 *  3. The imports buddypool does not define, sorted and de-duplicated, go in
 *     one warning naming the other runtime's path (or the drop-in's, saying
 *     that a call to one ends the program).
 * buddypool's names come from its own table rather than from dlsym on its
 * handle: dlsym would also search buddypool's dependencies and needs a dlopen
 * of our own path, while the table says exactly what this object exports.
 *
 * The names are pointers into the objects' string tables, used before the
 * constructor returns: no object can be unloaded meanwhile (at start-up there
 * is no other thread; under dlopen the loader holds its lock while
 * constructors run, so a dlclose elsewhere waits). */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsyms.h"

/* The warning is wrapped at this many columns. */
#define WRAP_COLUMNS 100

/* A growable array of names (pointers into string tables, or paths). */
struct names {
    const char **v;
    size_t n, cap;
    int out_of_memory;  /* set once an add failed: the check gives up quietly */
};

struct walk {
    const void *self;          /* an address inside buddypool's object */
    struct names runtimes;     /* paths of the other runtimes loaded */
    struct names dropins;      /* paths of buddypool's drop-in libraries loaded */
    struct names defined;      /* OpenMP names buddypool exports */
    struct names imported;     /* OpenMP names the other objects import */
};

static void names_add(struct names *s, const char *name)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        const char **v = realloc(s->v, cap * sizeof *v);
        if (v == NULL) {
            s->out_of_memory = 1;
            return;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = name;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void names_sort_unique(struct names *s)
{
    if (s->n == 0)
        return;
    qsort(s->v, s->n, sizeof *s->v, compare_names);
    size_t kept = 1;
    for (size_t i = 1; i < s->n; i++)
        if (strcmp(s->v[i], s->v[kept - 1]) != 0)
            s->v[kept++] = s->v[i];
    s->n = kept;
}

static int names_contain(const struct names *sorted, const char *name)
{
    return sorted->n > 0 &&
           bsearch(&name, sorted->v, sorted->n, sizeof *sorted->v, compare_names) != NULL;
}

static int is_openmp_name(const char *name)
{
    return strncmp(name, "GOMP_", 5) == 0 || strncmp(name, "__kmp", 5) == 0 ||
           strncmp(name, "omp_", 4) == 0 || strncmp(name, "kmp_", 4) == 0;
}

/* Add to `out` the OpenMP names of the object's dynamic symbols that it
 * defines (defined = 1) or imports (defined = 0); 0 when it has no symbol
 * table to read (nothing is known of it), else 1. */
struct collecting {
    int defined;
    struct names *out;
};

static int collect_one(const char *name, const ElfW(Sym) *sym, void *arg)
{
    struct collecting *c = arg;
    if ((sym->st_shndx != SHN_UNDEF) == c->defined && is_openmp_name(name))
        names_add(c->out, name);
    return 0;
}

static int collect(const struct dl_phdr_info *info, int defined, struct names *out)
{
    struct collecting c = {defined, out};
    return bp_elf_symbols(info, collect_one, &c);
}

static int find_runtimes(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct walk *w = arg;
    if (info->dlpi_name == NULL || !bp_elf_openmp_runtime(info->dlpi_name))
        return 0;
    struct names defines = {0};
    int read = collect(info, 1, &defines);
    names_add(read && defines.n == 0 && !defines.out_of_memory ? &w->dropins : &w->runtimes,
              info->dlpi_name);
    free(defines.v);
    return 0;
}

static int read_symbols(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct walk *w = arg;
    if (bp_elf_holds(info, w->self))
        collect(info, 1, &w->defined);
    else if (info->dlpi_name == NULL || !bp_elf_openmp_runtime(info->dlpi_name))
        collect(info, 0, &w->imported);
    return 0;
}

/* Write `text` to `out` wrapped at WRAP_COLUMNS on its spaces, continuation
 * lines indented by four, then a newline. */
static void write_wrapped(FILE *out, const char *text)
{
    size_t column = 0;
    while (*text != '\0') {
        size_t word = strcspn(text, " ");
        if (column > 0 && column + 1 + word > WRAP_COLUMNS) {
            fputs("\n   ", out);
            column = 3;
        }
        if (column > 0) {
            fputc(' ', out);
            column++;
        }
        fwrite(text, 1, word, out);
        column += word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

/* The warning is composed in memory and written with one call: bp_warn makes
 * one line of at most 512 bytes, which a long list of names would cut. */
static void warn_missing(const struct names *runtimes, const struct names *dropins,
                         const struct names *missing)
{
    char *text = NULL, *wrapped = NULL;
    size_t text_bytes = 0, wrapped_bytes = 0;
    FILE *t = open_memstream(&text, &text_bytes), *w;
    if (t == NULL)
        return;
    /* with no other runtime, the names come from the drop-in libraries,
     * which define none: nothing answers them */
    const struct names *named = runtimes->n > 0 ? runtimes : dropins;
    fputs("buddypool:", t);
    for (size_t i = 0; i < named->n; i++)
        fprintf(t, "%s %s", i == 0 ? "" : i + 1 < named->n ? "," : " and", named->v[i]);
    if (runtimes->n > 0)
        fprintf(t, " %s loaded beside buddypool; these OpenMP entry points the program uses"
                   " are not buddypool's and run there:", runtimes->n > 1 ? "are" : "is");
    else
        fprintf(t, " %s, which %s nothing of its own; these OpenMP"
                   " entry points the program uses are not buddypool's, so a call to one"
                   " ends the program (undefined symbol):",
                dropins->n > 1 ? "are buddypool's drop-ins" : "is buddypool's drop-in",
                dropins->n > 1 ? "define" : "defines");
    for (size_t i = 0; i < missing->n; i++)
        fprintf(t, " %s%s", missing->v[i], i + 1 < missing->n ? "," : "");
    if (fclose(t) != 0)
        goto out;
    w = open_memstream(&wrapped, &wrapped_bytes);
    if (w == NULL)
        goto out;
    write_wrapped(w, text);
    if (fclose(w) == 0)
        fputs(wrapped, stderr);
out:
    free(text);
    free(wrapped);
}

__attribute__((constructor)) static void check_other_runtimes(void)
{
    struct walk w = {.self = (const void *)check_other_runtimes};
    struct names missing = {0};
    dl_iterate_phdr(find_runtimes, &w);
    if ((w.runtimes.n == 0 && w.dropins.n == 0) || w.runtimes.out_of_memory ||
        w.dropins.out_of_memory)
        goto out;
    dl_iterate_phdr(read_symbols, &w);
    if (w.defined.out_of_memory || w.imported.out_of_memory)
        goto out;
    names_sort_unique(&w.defined);
    names_sort_unique(&w.imported);
    for (size_t i = 0; i < w.imported.n; i++)
        if (!names_contain(&w.defined, w.imported.v[i]))
            names_add(&missing, w.imported.v[i]);
    if (missing.n > 0 && !missing.out_of_memory)
        warn_missing(&w.runtimes, &w.dropins, &missing);
out:
    free(missing.v);
    free(w.runtimes.v);
    free(w.dropins.v);
    free(w.defined.v);
    free(w.imported.v);
}
