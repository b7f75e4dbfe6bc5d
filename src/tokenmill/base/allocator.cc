#include "tokenmill/base/allocator.h"

#include <cstring>

#ifdef TOKENMILL_MIMALLOC
#include <mimalloc.h>
#endif

namespace tokenmill {

#ifdef TOKENMILL_MIMALLOC
namespace {

// mimalloc reads its options when the process starts, in its library's initialiser, and gives
// the main thread its first segment then; that segment holds most of a process's small blocks.
// Large pages turned on from main() would miss it. An executable's DT_PREINIT_ARRAY runs before
// every library's initialiser (as the sanitizers' run-times use it), so the option is set here,
// unless the environment names it (mimalloc then reads it as usual).
void EnableLargeOsPages(int /*argc*/, char** /*argv*/, char** envp) {
  constexpr char kName[] = "MIMALLOC_LARGE_OS_PAGES=";
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, kName, sizeof kName - 1) == 0) return;
  }
  mi_option_set(mi_option_large_os_pages, 1);
}

[[gnu::section(".preinit_array"),
  gnu::used]] void (*const kEnableLargeOsPages)(int, char**, char**) = EnableLargeOsPages;

}  // namespace
#endif

std::string AllocatorName() {
#ifdef TOKENMILL_MIMALLOC
  const int v = mi_version();  // 209 for 2.0.9
  std::string name = "mimalloc " + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) +
                     "." + std::to_string(v % 10);
  if (mi_option_is_enabled(mi_option_large_os_pages)) name += ", large OS pages";
  return name;
#else
  return "the C library's malloc";
#endif
}

}  // namespace tokenmill
