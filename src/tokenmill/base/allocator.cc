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

void KeepThisThreadsMemory() {
#ifdef TOKENMILL_MIMALLOC
  // mimalloc makes the first eager_commit_delay segments of a thread other than the main one
  // lazy: on small pages, decommitted when free. Only a segment on large pages is kept (pinned).
  // The option is global, so it is lowered only while this thread's first block, and so its first
  // segment, is allocated; another thread making a segment in that instant merely gets an eager
  // one too.
  if (!mi_option_is_enabled(mi_option_large_os_pages)) return;
  const long delay = mi_option_get(mi_option_eager_commit_delay);
  if (delay == 0) return;
  mi_option_set(mi_option_eager_commit_delay, 0);
  void* const first = mi_malloc(1);
  mi_option_set(mi_option_eager_commit_delay, delay);
  mi_free(first);
#endif
}

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
