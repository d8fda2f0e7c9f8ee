// toml++'s compiled part, built into abcictl instead of loaded from
// libtomlplusplus.so: every shared library costs each run its mapping and
// relocations (about 0.15 ms of `abcictl version` for this one), and this is
// the library's own single-translation-unit mode, from the same installed
// headers the rest of the code is compiled against. Kept out of the unity
// build (src/CMakeLists.txt): TOML_IMPLEMENTATION must come before the
// first inclusion of toml++.

#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
