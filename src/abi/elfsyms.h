/* elfsyms.h: the objects loaded in the process, read from their images in
 * memory (elfsyms.c): which one holds an address, their dynamic symbols, and
 * which are OpenMP runtimes by name. For the start-up check of a preloaded
 * library (preload.c). */
#ifndef BUDDYPOOL_ELFSYMS_H
#define BUDDYPOOL_ELFSYMS_H

#include <link.h>

/* Does the object info describes hold the address p in a loaded segment? */
int bp_elf_holds(const struct dl_phdr_info *info, const void *p);
/* Call fn(name, sym, arg) on each global or weak dynamic symbol of the
 * object (defined or not; a version's own name, SHN_ABS, left out) until it
 * returns nonzero. 0 when the object has no symbol table to read (nothing
 * is known of it), else 1. */
typedef int (*bp_elf_symbol_fn)(const char *name, const ElfW(Sym) *sym, void *arg);
int bp_elf_symbols(const struct dl_phdr_info *info, bp_elf_symbol_fn fn, void *arg);
/* Is path's file name an OpenMP runtime's: libomp.so*, libgomp.so*,
 * libiomp5.so*, or a vendored libgomp-<hash>.so*? */
int bp_elf_openmp_runtime(const char *path);

#endif
