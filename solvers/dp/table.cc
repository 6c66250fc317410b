#include "solvers/dp/table.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "core/evaluate.h"
#include "solvers/capacity_relaxation.h"
#include "solvers/dp/block_walker.h"

namespace placer::dp {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::int64_t kParallelIdeals = 1000;  // fewer ideals: the table is filled on one thread

// The ideals whose Hasse children are all filled, for the parallel fill: each ideal counts its
// unfilled children, and the last child to finish hands it to the queue of the thread that filled
// it. A thread takes the newest of its own (a parent of the row it has just written, whose walk
// reads that row while its core still caches it) or, with none, the oldest of another's.
class ReadyQueue {
 public:
  ReadyQueue(const IdealLattice& lattice, int threads) : local_(threads) {
    const std::int64_t ideals = lattice.size();
    pending_ = std::vector<std::atomic<std::int32_t>>(ideals);
    up_begin_.assign(ideals + 1, 0);
    for (std::int64_t j = 0; j < ideals; ++j) {
      pending_[j].store(static_cast<std::int32_t>(lattice.down_begin[j + 1] - lattice.down_begin[j]),
                        std::memory_order_relaxed);
      for (std::int64_t e = lattice.down_begin[j]; e < lattice.down_begin[j + 1]; ++e)
        ++up_begin_[lattice.down_sub[e] + 1];
    }
    for (std::int64_t j = 0; j < ideals; ++j)
      up_begin_[j + 1] += up_begin_[j];
    up_parent_.resize(up_begin_[ideals]);
    std::vector<std::int64_t> fill(up_begin_.begin(), up_begin_.end() - 1);
    for (std::int64_t j = 0; j < ideals; ++j) {
      for (std::int64_t e = lattice.down_begin[j]; e < lattice.down_begin[j + 1]; ++e)
        up_parent_[fill[lattice.down_sub[e]]++] = static_cast<std::int32_t>(j);
    }
    std::vector<std::int32_t> first;
    finished(0, 0, first);  // the empty ideal
  }

  // Takes a ready ideal for `thread`, waiting for one: the last one its own fills made ready (whose
  // walk reads the rows it has just written, still in its core's cache), or else the oldest another
  // thread's made ready. False once the queue is closed.
  bool pop(int thread, std::int32_t& ideal) {
    std::unique_lock<std::mutex> lock(mutex_);
    available_.wait(lock, [&] { return ready_ > 0 || closed_; });
    if (closed_) return false;
    std::deque<std::int32_t>* from = &local_[thread];
    if (from->empty()) {
      for (std::deque<std::int32_t>& other : local_) {
        if (other.size() > from->size()) from = &other;
      }
      ideal = from->front();
      from->pop_front();
    } else {
      ideal = from->back();
      from->pop_back();
    }
    --ready_;
    return true;
  }

  // `thread` filled `ideal`: its parents with no unfilled child left become ready.
  void finished(int thread, std::int32_t ideal, std::vector<std::int32_t>& unlocked) {
    unlocked.clear();
    for (std::int64_t e = up_begin_[ideal]; e < up_begin_[ideal + 1]; ++e) {
      const std::int32_t parent = up_parent_[e];
      if (pending_[parent].fetch_sub(1) == 1) unlocked.push_back(parent);
    }
    if (unlocked.empty()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      local_[thread].insert(local_[thread].end(), unlocked.begin(), unlocked.end());
      ready_ += unlocked.size();
    }
    if (unlocked.size() == 1) {
      available_.notify_one();
    } else {
      available_.notify_all();
    }
  }

  // Wakes every waiting thread; pop() returns false from now on.
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    available_.notify_all();
  }

 private:
  std::vector<std::atomic<std::int32_t>> pending_;  // per ideal: Hasse children not yet filled
  std::vector<std::int64_t> up_begin_;              // CSR of the Hasse edges upwards
  std::vector<std::int32_t> up_parent_;
  std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::deque<std::int32_t>> local_;  // per thread: the ideals its fills made ready
  std::size_t ready_ = 0;                        // in all of them
  bool closed_ = false;
};

// Which entries dp[I][c][a] can lie on a split of max-load at most the bound B: I must fit on c
// CPU cores and a accelerators, and the rest of the graph on the other devices, every device's load
// at most B, on the relaxation of solvers/capacity_relaxation.h. An optimal split of value at most
// B passes only through live entries, so leaving the others at +inf keeps the optimum; an ideal
// with no live entry is not walked at all. With B near the optimum only ideals whose compute is
// near a multiple of B, where a device boundary can fall, stay live: on a chain of transformer
// layers most of the lattice is skipped.
class LiveRows {
 public:
  LiveRows(const DpInstance& instance, const IdealLattice& lattice, const DeviceSet& devices, double bound)
      : relaxation_(relaxationOf(instance, devices)) {
    const std::int64_t ideals = lattice.size();
    std::vector<CapacityRelaxation::Work> work(ideals);
    for (std::int64_t j = 1; j < ideals; ++j) {  // J = (J minus one maximal node) + that node
      const std::int64_t e = lattice.down_begin[j];
      const Unit& unit = instance.units[lattice.down_node[e]];
      work[j] = work[lattice.down_sub[e]];
      work[j].add(unit.p_acc, unit.p_cpu, unit.unsupported);
    }
    live_.assign(ideals, 0);
    for (std::int64_t j = 0; j < ideals; ++j) {
      for (int c = 0; c <= devices.cpus && !live_[j]; ++c) {
        for (int a = 0; a <= devices.accelerators && !live_[j]; ++a)
          live_[j] = relaxation_.live(work[j], c, a, bound);
      }
    }
  }

  // Some entry of the ideal's row is live.
  bool any(std::int64_t ideal) const { return live_[ideal] != 0; }

 private:
  static CapacityRelaxation relaxationOf(const DpInstance& instance, const DeviceSet& devices) {
    std::vector<double> p_acc, p_cpu;
    std::vector<std::uint8_t> unsupported;
    for (const Unit& unit : instance.units) {
      p_acc.push_back(unit.p_acc);
      p_cpu.push_back(unit.p_cpu);
      unsupported.push_back(unit.unsupported);
    }
    return CapacityRelaxation(p_acc, p_cpu, unsupported, devices.accelerators, devices.cpus);
  }

  CapacityRelaxation relaxation_;
  std::vector<std::uint8_t> live_;
};

// The table dp[I][c][a]: the best max-load for placing ideal I on c CPUs and a accelerators.
class DpTable {
 public:
  DpTable(const Problem& problem, const DpInstance& instance, const IdealLattice& lattice, double upper_bound)
      : problem_(problem),
        instance_(instance),
        lattice_(lattice),
        devices_(problem.devices),
        accs_(devices_.accelerators),
        cpus_(devices_.cpus),
        combos_((accs_ + 1) * (cpus_ + 1)),
        prune_above_(upper_bound * (1 + 1e-9) + 1e-12),
        dp_(static_cast<std::size_t>(lattice.size()) * combos_, kInfinity) {
    std::fill(dp_.begin(), dp_.begin() + combos_, 0.0);  // the empty ideal costs nothing
    if (upper_bound < kInfinity) live_.emplace(instance, lattice, devices_, prune_above_);
  }

  // False when the budget ran out before the table was complete. A row reads only the rows of
  // sub-ideals, and every sub-ideal of J is reached from J by Hasse edges, so J may be filled as soon
  // as the ideals one node smaller than it are: `threads` threads take ready ideals from a queue
  // (dataflow over the lattice, no barrier between sizes, so one slow ideal does not idle the other
  // threads). A row is computed by the same code in the same order whichever thread takes it, so the
  // table is bit-identical for any number of threads; one thread fills ideals in id order.
  bool fill(int threads, const ProgressFn& progress, const Budget& budget, SolveStats& stats) {
    const std::int64_t ideals = lattice_.size();
    // Below about a thousand ideals the table fills in milliseconds: threads would only cost.
    if (ideals < kParallelIdeals) threads = 1;
    // Per thread, on cache lines of its own: its counts. Each thread builds its walker and minima
    // itself, so that what it writes on every ideal pair comes from its own allocations (glibc gives
    // each thread its own arena), never a cache line another thread writes.
    std::vector<ThreadCounts> counts(threads);
    std::atomic<std::int64_t> done{1};  // the empty ideal is filled already
    std::atomic<bool> stop{false};
    auto last_report = Clock::now();
    auto report = [&] {  // worker 0 only
      if (!progress || Clock::now() - last_report < std::chrono::milliseconds(500)) return;
      last_report = Clock::now();
      std::int64_t pairs = 0;
      for (const ThreadCounts& c : counts)
        pairs += c.pairs.load(std::memory_order_relaxed);
      progress({"dp", done.load(std::memory_order_relaxed), ideals,
                std::to_string(pairs) + " ideal pairs evaluated"});
    };
    // After every row (a clock read, against rows of microseconds to seconds each).
    auto checkBudget = [&](int t) {
      if (budget.exhausted()) stop = true;
      if (t == 0) report();
    };
    if (threads == 1) {
      RowWorker w(makeWalker(), combos_);
      for (std::int64_t ideal = 1; ideal < ideals && !stop; ++ideal) {
        counts[0].pairs.fetch_add(fillRow(static_cast<std::int32_t>(ideal), w), std::memory_order_relaxed);
        done.fetch_add(1, std::memory_order_relaxed);
        checkBudget(0);
      }
      counts[0].pruned = w.walker.pruned();
    } else {
      ReadyQueue ready(lattice_, threads);
      auto work = [&](int t) {
        RowWorker w(makeWalker(), combos_);
        std::vector<std::int32_t> unlocked;
        for (std::int32_t ideal; !stop.load(std::memory_order_relaxed) && ready.pop(t, ideal);) {
          counts[t].pairs.fetch_add(fillRow(ideal, w), std::memory_order_relaxed);
          const std::int64_t total = done.fetch_add(1) + 1;
          checkBudget(t);
          if (total == ideals || stop.load(std::memory_order_relaxed)) {
            ready.close();
            break;
          }
          ready.finished(t, ideal, unlocked);
        }
        counts[t].pruned = w.walker.pruned();
      };
      std::vector<std::thread> pool;
      for (int t = 1; t < threads; ++t)
        pool.emplace_back(work, t);
      work(0);
      for (std::thread& thread : pool)
        thread.join();
    }
    for (const ThreadCounts& c : counts) {
      stats.ideal_pairs += c.pairs.load();
      stats.pruned += c.pruned;
    }
    return done.load() == ideals;
  }

  double optimum() const { return row(fullIdeal())[at(cpus_, accs_)]; }

  // The blocks of an optimal split in pipeline order: walks the table back from the full ideal,
  // re-running the same enumeration (same arithmetic, so bit-identical values) to find the block
  // that achieved each entry. Empty if the table cannot be traced back (a bug).
  std::optional<std::vector<Block>> traceBack() const {
    std::vector<Block> blocks;
    std::int32_t ideal = fullIdeal();
    int c = cpus_, a = accs_;
    while (ideal != 0) {
      const double target = row(ideal)[at(c, a)];
      if (a > 0 && row(ideal)[at(c, a - 1)] == target) {
        --a;
        continue;
      }
      if (c > 0 && row(ideal)[at(c - 1, a)] == target) {
        --c;
        continue;
      }
      std::int32_t chosen = -1;
      Block block;
      BlockWalker replay = makeWalker();
      replay.walk(ideal, [&](std::int32_t sub, const BlockState& s) {
        if (chosen != -1) return;
        const double* prev = row(sub);
        if (a > 0 && std::max(prev[at(c, a - 1)], accCost(s)) == target) {
          block.accelerator = true;
        } else if (c > 0 && std::max(prev[at(c - 1, a)], cpuCost(s)) == target) {
          block.accelerator = false;
        } else {
          return;
        }
        chosen = sub;
        block.units = replay.block();
      });
      if (chosen == -1) return std::nullopt;
      (block.accelerator ? a : c) -= 1;
      blocks.push_back(std::move(block));
      ideal = chosen;
    }
    std::reverse(blocks.begin(), blocks.end());
    return blocks;
  }

 private:
  // What one thread needs to fill rows: its own walk state and minima.
  struct RowWorker {
    BlockWalker walker;
    std::vector<double> best_acc, best_cpu;
    RowWorker(BlockWalker w, int combos) : walker(std::move(w)), best_acc(combos), best_cpu(combos) {}
  };
  // One thread's counts of ideal pairs and pruned subtrees, alone on its cache line.
  struct alignas(64) ThreadCounts {
    std::atomic<std::int64_t> pairs{0};
    std::int64_t pruned = 0;
  };

  // dp[ideal][*] from the rows of its sub-ideals; returns the ideal pairs walked.
  std::int64_t fillRow(std::int32_t ideal, RowWorker& w) {
    if (live_ && !live_->any(ideal)) return 0;  // the row stays +inf
    std::vector<double>& best_acc = w.best_acc;
    std::vector<double>& best_cpu = w.best_cpu;
    std::fill(best_acc.begin(), best_acc.end(), kInfinity);
    std::fill(best_cpu.begin(), best_cpu.end(), kInfinity);
    std::int64_t pairs = 0;
    w.walker.walk(ideal, [&](std::int32_t sub, const BlockState& s) {
      ++pairs;
      if (live_ && !live_->any(sub)) return;  // a row of +inf improves nothing
      const double* prev = row(sub);
      if (const double acc = accCost(s); acc < kInfinity) {
        for (int c = 0; c <= cpus_; ++c) {
          for (int a = 1; a <= accs_; ++a) {
            best_acc[at(c, a)] = std::min(best_acc[at(c, a)], std::max(prev[at(c, a - 1)], acc));
          }
        }
      }
      const double cpu = cpuCost(s);
      for (int c = 1; c <= cpus_; ++c) {
        for (int a = 0; a <= accs_; ++a) {
          best_cpu[at(c, a)] = std::min(best_cpu[at(c, a)], std::max(prev[at(c - 1, a)], cpu));
        }
      }
    });
    // Leaving a device unused is the same as solving with one device fewer.
    double* cur = row(ideal);
    for (int c = 0; c <= cpus_; ++c) {
      for (int a = 0; a <= accs_; ++a) {
        double v = std::min(best_acc[at(c, a)], best_cpu[at(c, a)]);
        if (a > 0) v = std::min(v, cur[at(c, a - 1)]);
        if (c > 0) v = std::min(v, cur[at(c - 1, a)]);
        cur[at(c, a)] = v;
      }
    }
    return pairs;
  }

  BlockWalker makeWalker() const {
    return BlockWalker(instance_.units, instance_.touches, instance_.weight_touches, problem_, lattice_,
                       prune_above_);
  }
  std::int32_t fullIdeal() const { return static_cast<std::int32_t>(lattice_.size() - 1); }
  int at(int c, int a) const { return c * (accs_ + 1) + a; }
  const double* row(std::int32_t ideal) const { return &dp_[static_cast<std::size_t>(ideal) * combos_]; }
  double* row(std::int32_t ideal) { return &dp_[static_cast<std::size_t>(ideal) * combos_]; }
  // A CPU core pays its compute and its boundary work (App. C.1's overlap is for accelerators).
  static double cpuCost(const BlockState& s) { return s.p_cpu + s.cpu_comm; }
  double accCost(const BlockState& s) const {
    if (accs_ == 0 || s.unsupported > 0 || s.memory > devices_.memory) return kInfinity;
    return acceleratorLoad(problem_.objective.overlap, s.p_acc, s.comm_in, s.comm_out);
  }

  const Problem& problem_;
  const DpInstance& instance_;
  const IdealLattice& lattice_;
  const DeviceSet& devices_;
  const int accs_, cpus_, combos_;
  const double prune_above_;
  std::vector<double> dp_;
  std::optional<LiveRows> live_;  // without an upper bound every entry is live
};

}  // namespace

TableResult fillTable(const Problem& problem, const DpInstance& instance, const IdealLattice& lattice,
                      double upper_bound, int threads, const ProgressFn& progress, const Budget& budget,
                      SolveStats& stats) {
  TableResult result;
  DpTable table(problem, instance, lattice, upper_bound);
  if (!table.fill(threads, progress, budget, stats)) return result;
  result.complete = true;
  result.optimum = table.optimum();
  if (result.optimum < kInfinity) result.blocks = table.traceBack();
  return result;
}

}  // namespace placer::dp
