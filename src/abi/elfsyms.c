/* elfsyms.c: the objects loaded in the process, read from their images in
 * memory, as dl_iterate_phdr hands them over.
 *
 * An object's dynamic symbols: PT_DYNAMIC gives DT_SYMTAB and DT_STRTAB;
 * the symbol count comes from DT_HASH, or by walking DT_GNU_HASH, or, where
 * that hashes nothing (a program that exports nothing), from the table that
 * follows the symbol table. Reading them from memory, rather than with
 * dlopen and dlsym, takes none of the dynamic linker's locks but the one
 * dl_iterate_phdr holds while it lists the objects (so it may run while
 * another thread is inside dlopen, running constructors), and it sees
 * exactly what one object defines, where dlsym on a handle would also
 * search that object's dependencies.
 *
 * The pointers handed out (names, symbols) are into an object's image:
 * valid while it stays loaded, which the callers' dl_iterate_phdr walks
 * ensure for as long as they use them. */
#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "elfsyms.h"

/* DT_HASH words are 64-bit on s390x and alpha (glibc's Elf_Symndx), 32-bit
 * elsewhere. DT_GNU_HASH, which every current toolchain emits, is 32-bit on
 * all of them. */
#if defined(__s390x__) || defined(__alpha__)
typedef uint64_t hash_word;
#else
typedef uint32_t hash_word;
#endif

/* The end of the object's loaded segment that holds p, or 0 when none does. */
static uintptr_t segment_end(const struct dl_phdr_info *info, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= start && a - start < ph->p_memsz)
            return start + ph->p_memsz;
    }
    return 0;
}

/* A d_ptr value of the dynamic section as an address. glibc relocates these
 * in place where the dynamic section is writable; where it is read-only
 * (MIPS, RISC-V, the vDSO) or with other C libraries they stay link-time
 * addresses, which for a shared object or PIE are below its load base. */
static uintptr_t dyn_address(const struct dl_phdr_info *info, ElfW(Addr) value)
{
    return value < info->dlpi_addr ? info->dlpi_addr + value : value;
}

/* Symbols in a DT_GNU_HASH table, or 0 when it hashes none. Unhashed
 * symbols (imports) come first, below symoffset; the last hashed one ends the
 * chain of the highest bucket (its low bit set). A table that hashes nothing
 * says nothing about the count: GNU ld then writes symoffset 1 whatever the
 * number of imports (a non-PIE program that exports nothing). */
static size_t gnu_hash_symbols(const uint32_t *table)
{
    uint32_t nbuckets = table[0], symoffset = table[1], bloom_words = table[2];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(table + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_words);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t i = 0; i < nbuckets; i++)
        if (buckets[i] > last)
            last = buckets[i];
    if (last < symoffset)
        return 0;
    while ((chain[last - symoffset] & 1) == 0)
        last++;
    return (size_t)last + 1;
}

/* Tags whose d_ptr is the address of a table in the object's image. */
static int is_table_tag(ElfW(Sxword) tag)
{
    switch (tag) {
    case DT_PLTGOT: case DT_HASH: case DT_STRTAB: case DT_RELA: case DT_REL:
    case DT_JMPREL: case DT_INIT: case DT_FINI: case DT_INIT_ARRAY:
    case DT_FINI_ARRAY: case DT_PREINIT_ARRAY: case DT_GNU_HASH: case DT_VERSYM:
    case DT_VERDEF: case DT_VERNEED:
        return 1;
    }
    return 0;
}

int bp_elf_holds(const struct dl_phdr_info *info, const void *p)
{
    return segment_end(info, p) != 0;
}

int bp_elf_symbols(const struct dl_phdr_info *info, bp_elf_symbol_fn fn, void *arg)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return 0;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    size_t strtab_bytes = 0;
    const hash_word *hash = NULL;
    const uint32_t *gnu_hash = NULL;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB:
            symtab = (const ElfW(Sym) *)dyn_address(info, d->d_un.d_ptr);
            break;
        case DT_STRTAB:
            strtab = (const char *)dyn_address(info, d->d_un.d_ptr);
            break;
        case DT_STRSZ:
            strtab_bytes = d->d_un.d_val;
            break;
        case DT_HASH:
            hash = (const hash_word *)dyn_address(info, d->d_un.d_ptr);
            break;
        case DT_GNU_HASH:
            gnu_hash = (const uint32_t *)dyn_address(info, d->d_un.d_ptr);
            break;
        }
    }
    if (symtab == NULL || strtab == NULL)
        return 0;
    /* DT_HASH's nchain is the symbol count; DT_GNU_HASH must be walked. When
     * neither tells, the table ends where the nearest table above it starts:
     * linkers put .dynstr (GNU ld, gold) or .gnu.version (lld, mold) right
     * after .dynsym, so that is its exact end, give or take padding; the
     * end of the segment that holds the table bounds it in any case. */
    size_t count = hash ? (size_t)hash[1] : gnu_hash ? gnu_hash_symbols(gnu_hash) : 0;
    uintptr_t end = count == 0 ? segment_end(info, symtab) : 0;
    if (end != 0) {
        for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
            uintptr_t at = is_table_tag(d->d_tag) ? dyn_address(info, d->d_un.d_ptr) : 0;
            if (at > (uintptr_t)symtab && at < end)
                end = at;
        }
        count = (end - (uintptr_t)symtab) / sizeof *symtab;
    }
    for (size_t i = 1; i < count; i++) {  /* symbol 0 is the null symbol */
        const ElfW(Sym) *sym = &symtab[i];
        int bind = ELF64_ST_BIND(sym->st_info); /* ELF32_ST_BIND is the same */
        if (sym->st_name == 0 || sym->st_name >= strtab_bytes)
            continue;
        if (bind != STB_GLOBAL && bind != STB_WEAK)
            continue;
        if (sym->st_shndx == SHN_ABS) /* a version's name (GOMP_1.0), not an entry point */
            continue;
        if (fn(strtab + sym->st_name, sym, arg) != 0)
            break;
    }
    return 1;
}


int bp_elf_openmp_runtime(const char *path)
{
    static const char *const stems[] = {"libomp", "libgomp", "libiomp5"};
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) {
        size_t len = strlen(stems[i]);
        if (strncmp(base, stems[i], len) != 0)
            continue;
        const char *rest = base + len;
        if (strncmp(rest, ".so", 3) == 0 || (rest[0] == '-' && strstr(rest, ".so") != NULL))
            return 1;
    }
    return 0;
}
