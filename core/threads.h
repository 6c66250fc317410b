// Threads for the solvers' parallel loops: how many to use, and a loop over indices that hands them
// out dynamically. The solvers stay deterministic by construction, not by scheduling: every index's
// work is computed the same way whichever thread takes it, and results are combined in index order.
#pragma once

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace placer {

// `requested` threads, or every core the machine reports when it is 0 (at least 1).
inline int threadCount(int requested) {
  if (requested > 0) return requested;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

// body(worker, index) for every index in [0, count), on up to `threads` threads (worker in
// [0, threads)); the calling thread is worker 0.
template <typename Body>
void parallelFor(int threads, int count, Body&& body) {
  threads = std::min(threads, count);
  if (threads <= 1) {
    for (int i = 0; i < count; ++i)
      body(0, i);
    return;
  }
  std::atomic<int> next{0};
  auto work = [&](int worker) {
    for (int i = next.fetch_add(1); i < count; i = next.fetch_add(1))
      body(worker, i);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int w = 1; w < threads; ++w)
    pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool)
    t.join();
}

}  // namespace placer
