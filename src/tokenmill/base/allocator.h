// The process's memory allocator. The tokenmill binary and the tokenizer benchmarks link
// mimalloc (Debian's libmimalloc), which then serves malloc and operator new for the whole
// process, with large OS pages: its memory comes in 2 MiB transparent huge pages (madvise), so a
// process touching fresh memory (a tokenizer's tables, a document's buffers) takes one page fault
// where 4 KiB pages took 512. Linking the tm_allocator object library is all it takes (it turns
// the pages on before any library starts). Sanitizer builds keep their run-time's allocator
// (TOKENMILL_MIMALLOC is off there). BENCHMARKS.md, "The memory allocator".
//
// MIMALLOC_LARGE_OS_PAGES=0 in the environment turns the large pages off; mimalloc's other
// MIMALLOC_* settings apply as documented by mimalloc.
#pragma once

#include <string>

namespace tokenmill {

// What serves allocations, for --version and reports: "mimalloc 2.0.9, large OS pages",
// "mimalloc 2.0.9" or "the C library's malloc".
std::string AllocatorName();

// Gives the calling thread, which must not have allocated yet, memory on large OS pages that
// stays with it. A thread other than the main one otherwise gets its first segment (32 MiB of
// address space, where its first blocks live) on small pages that mimalloc gives back to the
// system as soon as they are free: a thread that runs task after task, whose buffers (a file's
// read buffer, a shard's, a task's documents) are freed at the end of each task and taken again
// by the next, then faults them all in again each time. The price is that memory on large pages
// is counted in 2 MiB steps: a thread that runs a single task (one huge document) is better
// without. No-op without mimalloc. BENCHMARKS.md, "The memory allocator".
void KeepThisThreadsMemory();

}  // namespace tokenmill
