// The `concord` tool's memory allocator settings (jemalloc, linked into this executable only:
// apps/concord/CMakeLists.txt).
//
// A step builds and drops broad-phase arrays of tens to hundreds of megabytes (swept boxes and
// BVHs of every system), and a pile's working set is gigabytes. With glibc's malloc in 4 KiB
// pages, first touches and TLB misses cost 30-50 % of a dense frame (perf: clear_page and the
// page-fault path; in-process workers, whose threads get arenas that are mapped and unmapped
// every step, the most). jemalloc backed by transparent huge pages runs the same steps with
// about 200 times fewer page faults: docs/benchmarks.md, "Memory allocator". Pages freed and
// not reused for 2 s go back to the system (dirty decay 2 s, no muzzy stage): a dense pile's
// peak RSS is 17-27 % lower than with the decay off, for 2-6 % more time (docs/benchmarks.md,
// "Eighth performance pass"; MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 keeps every page).
// Results do not depend on the allocator (the states are bit for bit the same). MALLOC_CONF in
// the environment overrides these settings (jemalloc reads it after this).
#ifdef CONCORD_WITH_JEMALLOC
extern "C" {
// jemalloc's compile-time configuration hook, read once at its start-up.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
const char* malloc_conf = "thp:always,metadata_thp:always,dirty_decay_ms:2000,muzzy_decay_ms:0";
}
#endif
