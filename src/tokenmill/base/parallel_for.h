// ParallelFor: runs fn(0) .. fn(n - 1) on up to `threads` threads (the caller's among them) and
// returns when all have returned. For independent requests to a store, each of which mostly
// waits (reading 10,000 records one at a time from an object store takes minutes).
//
//   std::vector<StatusOr<std::string>> out(urls.size(), Status::Internal("not read"));
//   ParallelFor(urls.size(), 16, [&](size_t i) { out[i] = store.Read(urls[i]); });
//
// Every index is run exactly once, whatever the others do; fn must not throw. Results go to
// slots of the caller's own (one per index), so they come back in index order.
#pragma once

#include <cstddef>
#include <functional>

namespace tokenmill {

void ParallelFor(size_t n, int threads, const std::function<void(size_t)>& fn);

}  // namespace tokenmill
