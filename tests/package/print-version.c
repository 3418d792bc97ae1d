/* print-version.c: the version the header states and the one the library
 * reports, for check-version.sh: "header M.m.p" and "library M.m.p". */
#include <stdio.h>

#include <buddypool.h>

int main(void)
{
    printf("header %d.%d.%d\n", BUDDYPOOL_VERSION_MAJOR, BUDDYPOOL_VERSION_MINOR,
           BUDDYPOOL_VERSION_PATCH);
    printf("library %s\n", buddypool_version());
    return 0;
}
