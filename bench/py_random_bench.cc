// Python's random reproduced (PyRandom): the shuffles the BERT builder makes of each instance's
// masking candidates. py_random_bench [--benchmark_filter=...]; the argument is the list's length
// (126: the candidates of a full 128-token instance).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "tokenmill/base/py_random.h"

namespace tokenmill {
namespace {

void BM_PyRandomShuffle(benchmark::State& state) {
  PyRandom rng(12345);
  std::vector<uint32_t> positions(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    std::iota(positions.begin(), positions.end(), 0u);
    rng.Shuffle(&positions);
    benchmark::DoNotOptimize(positions.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PyRandomShuffle)->Arg(20)->Arg(126)->Arg(510);

void BM_PyRandomRandom(benchmark::State& state) {
  PyRandom rng(12345);
  for (auto _ : state) benchmark::DoNotOptimize(rng.Random());
}
BENCHMARK(BM_PyRandomRandom);

}  // namespace
}  // namespace tokenmill

BENCHMARK_MAIN();
