// Sanitizer builds only (CONCORD_SANITIZE, scripts/sanitize.sh): shared objects are never
// unloaded, so that LeakSanitizer can name the module behind every allocation it reports at exit.
//
// Open MPI loads its components (plugins) with dlopen and closes them in MPI_Finalize. What a
// component allocated and kept until exit is then reported with stacks that end in
// "<unknown module>", which no suppression can match (scripts/lsan.supp names the Open MPI
// modules). Defining dlclose in the executable interposes it for every library of the process:
// the modules stay mapped, their names stay known, and lsan.supp applies to them. Nothing of
// Concord unloads a shared object; the release build does not contain this file.
#include <dlfcn.h>

extern "C" int dlclose(void*) noexcept { return 0; }
