/* interop.c: the interop routines with no device (OpenMP 5.2, 18.12). No
 * interop object can be made without one, so every query is about
 * omp_interop_none: no implementation-defined properties; each predefined
 * property (omp_ipr_first..-1) has its name and no value (omp_irc_empty,
 * 0 or NULL); a property past them is out of range; each return code has a
 * description, and a code that is not one has none. Asked from every
 * thread of a team too. libomp without libomptarget answers 0 and NULL and
 * leaves ret_code as it was, so this runs on buddypool, linked and
 * preloaded into the libomp build. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

static int fails;

#define EXPECT(c)                                                                       \
    do {                                                                                \
        if (!(c)) {                                                                     \
            _Pragma("omp critical") fprintf(stderr, "interop.c:%d: %s\n", __LINE__, #c); \
            _Pragma("omp atomic") fails++;                                              \
        }                                                                               \
    } while (0)

static void ask(void)
{
    omp_interop_t none = omp_interop_none;
    EXPECT(omp_get_num_interop_properties(none) == 0);
    for (int p = omp_ipr_first; p < 0; p++) {
        int rc = 12345;
        EXPECT(omp_get_interop_int(none, (omp_interop_property_t)p, &rc) == 0);
        EXPECT(rc == omp_irc_empty);
        rc = 12345;
        EXPECT(omp_get_interop_ptr(none, (omp_interop_property_t)p, &rc) == NULL);
        EXPECT(rc == omp_irc_empty);
        rc = 12345;
        EXPECT(omp_get_interop_str(none, (omp_interop_property_t)p, &rc) == NULL);
        EXPECT(rc == omp_irc_empty);
        EXPECT(omp_get_interop_name(none, (omp_interop_property_t)p) != NULL);
        EXPECT(omp_get_interop_type_desc(none, (omp_interop_property_t)p) == NULL);
    }
    EXPECT(strcmp(omp_get_interop_name(none, omp_ipr_fr_id), "fr_id") == 0);
    EXPECT(strcmp(omp_get_interop_name(none, omp_ipr_vendor_name), "vendor_name") == 0);
    EXPECT(strcmp(omp_get_interop_name(none, omp_ipr_device_num), "device_num") == 0);
    EXPECT(strcmp(omp_get_interop_name(none, omp_ipr_targetsync), "targetsync") == 0);
    int outside[] = {omp_ipr_first - 1, 0, 1, 100};
    for (int k = 0; k < 4; k++) {
        omp_interop_property_t p = (omp_interop_property_t)outside[k];
        int rc = 12345;
        EXPECT(omp_get_interop_int(none, p, &rc) == 0);
        EXPECT(rc == omp_irc_out_of_range);
        EXPECT(omp_get_interop_name(none, p) == NULL);
    }
    EXPECT(omp_get_interop_int(none, omp_ipr_fr_id, NULL) == 0); /* no ret_code */
    EXPECT(omp_get_interop_str(none, omp_ipr_vendor_name, NULL) == NULL);
    const char *seen[8];
    for (int rc = omp_irc_other; rc <= omp_irc_no_value; rc++) {
        const char *d = omp_get_interop_rc_desc(none, (omp_interop_rc_t)rc);
        EXPECT(d != NULL && d[0] != '\0');
        seen[rc - omp_irc_other] = d;
        for (int k = omp_irc_other; k < rc && d != NULL; k++)
            EXPECT(seen[k - omp_irc_other] == NULL || strcmp(seen[k - omp_irc_other], d) != 0);
    }
    EXPECT(omp_get_interop_rc_desc(none, (omp_interop_rc_t)2) == NULL);
    EXPECT(omp_get_interop_rc_desc(none, (omp_interop_rc_t)(omp_irc_other - 1)) == NULL);
}

int main(void)
{
    ask();
    int threads = 0;
#pragma omp parallel num_threads(2) reduction(+ : threads)
    {
        ask();
        threads += 1;
    }
    printf("interop: asked from 1 and %d threads, %d failures\n", threads, fails);
    return fails != 0;
}
