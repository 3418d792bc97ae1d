/* dropin.c: the one source of the drop-in libgomp.so.1 and libomp.so.5
 * (cmake/BuddypoolDropin.cmake). They hold no code of their own: each is a
 * soname, the runtime's version nodes and a dependency on libbuddypool.so.0,
 * whose definitions the dynamic linker then binds. */
typedef int bp_dropin_is_empty;
