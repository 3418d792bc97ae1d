/* interop-api.c: calls of the OpenMP interop routines, which buddypool does
 * not define, for the preload tests: many entry points bind to the
 * program's own runtime (libomp), so the one warning is long and must
 * wrap. Built with clang. Runs one parallel region, on buddypool's pool
 * when preloaded. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int devices = omp_get_num_devices(), host = omp_get_default_device(); /* buddypool's */
    int threads = 0;
#pragma omp parallel reduction(+ : threads)
    threads += 1;
    omp_interop_t none = omp_interop_none;
    int rc = 0;
    int props = omp_get_num_interop_properties(none);
    omp_intptr_t i = omp_get_interop_int(none, omp_ipr_fr_id, &rc);
    void *p = omp_get_interop_ptr(none, omp_ipr_device, &rc);
    const char *s = omp_get_interop_str(none, omp_ipr_vendor_name, &rc);
    const char *name = omp_get_interop_name(none, omp_ipr_fr_id);
    const char *type = omp_get_interop_type_desc(none, omp_ipr_fr_id);
    const char *desc = omp_get_interop_rc_desc(none, omp_irc_no_value);
    /* The values differ between runtimes; only that they ran is printed. */
    (void)devices, (void)host, (void)props, (void)i, (void)p, (void)s, (void)name, (void)type, (void)desc;
    printf("interop API called; a region ran: %d\n", threads > 0);
    printf("regions 1\n");
    return 0;
}
