#include "solvers/dp/table.h"

#include <algorithm>
#include <array>
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
// layers most of the lattice is skipped. On a mixed machine the relaxation runs every unit at its
// fastest kind's time on any accelerator, which keeps it a relaxation. A CPU core holds one convex
// block, so it takes over no more accelerator work than the most any block within B carries
// (mostPerCpu): on a model of many small operators that is far below what the knapsack would let a
// core gather from all over the graph (Llama-2-7B with a CPU core: 0.19 ms against 1.8 ms of a 7.7
// ms bound), and far fewer rows stay live.
class LiveRows {
 public:
  LiveRows(const Problem& problem, const DpInstance& instance, const IdealLattice& lattice, double bound,
           const Budget& budget)
      : relaxation_(unitsRelaxation(instance, problem.devices)) {
    const DeviceSet& devices = problem.devices;
    const std::int64_t ideals = lattice.size();
    if (devices.cpus > 0 && devices.accelerators > 0) {
      const double knapsack = relaxation_.absorbable(bound, 1);
      relaxation_.limitPerCpu(mostPerCpu(problem, instance, lattice, bound, knapsack, budget));
    }
    const std::vector<CapacityRelaxation::Work> work = workOfIdeals(instance, lattice, devices);
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
  // The most accelerator work (kind 0's time, at least the fastest kind's) of a block a CPU core can
  // run within the bound, compute and boundary work: every convex set is I∖I' for ideals I' ⊂ I, so
  // walking the sub-ideals of every ideal, each walk cut short once the block's CPU compute alone is
  // above the bound, meets every block a core of a split within the bound holds.
  static double mostPerCpu(const Problem& problem, const DpInstance& instance, const IdealLattice& lattice,
                           double bound, double knapsack, const Budget& budget) {
    BlockWalker<1> walker(instance.units, instance.touches, instance.weight_touches, problem, lattice, bound,
                          /*cpu_only=*/true);
    double most = 0;
    // Stops early, with no limit, once a block takes nearly as much as the knapsack, where the limit
    // would change little (Table 1's CPU cores are ten times slower on every node: 12 of its 16
    // workloads get there, and layer InceptionV3's walks would cost 0.2 s of a 1 s DP for nothing),
    // or once the budget runs out.
    constexpr double kWorthIt = 0.9;
    for (std::int32_t ideal = 1; ideal < lattice.size(); ++ideal) {
      if (most >= kWorthIt * knapsack || (ideal % 1024 == 0 && budget.exhausted())) return -1;
      walker.walk(ideal, [&](std::int32_t, const BlockState<1>& s) {
        if (s.p_cpu + s.cpu_comm <= bound) most = std::max(most, s.p_acc);
      });
    }
    return most;
  }

  CapacityRelaxation relaxation_;
  std::vector<std::uint8_t> live_;
};

// The table dp[I][c][a]: the best max-load for placing ideal I on c CPUs and a accelerators, and on
// a mixed machine dp[I][c][a₁]…[aₜ], a count per kind. A row is the counts in mixed radix: kind 0's
// count varies fastest (stride 1), then kind 1's, ..., the CPUs' slowest, so with one kind entry
// (c, a) is at c·(k+1)+a, and each count's entry with one device fewer comes earlier in the row.
template <int MaxKinds>
class DpTable {
 public:
  using Walker = BlockWalker<MaxKinds>;
  using State = BlockState<MaxKinds>;

  DpTable(const Problem& problem, const DpInstance& instance, const IdealLattice& lattice, double upper_bound)
      : problem_(problem),
        instance_(instance),
        lattice_(lattice),
        devices_(problem.devices),
        kinds_(MaxKinds == 1 ? 1 : devices_.kindCount()),
        prune_above_(pruneAbove(upper_bound)) {
    int stride = 1;
    for (int k = 0; k < kinds_; ++k) {
      stride_[k] = stride;
      stride *= devices_.kindSize(k) + 1;
    }
    stride_[kinds_] = stride;  // the CPUs'
    combos_ = stride * (devices_.cpus + 1);
    // Which counts of each entry can give up a device (bit k: kind k; bit kinds_: a CPU core).
    can_drop_.assign(combos_, 0);
    with_kind_.assign(kinds_ + 1, {});
    for (int idx = 0; idx < combos_; ++idx) {
      for (int k = 0; k <= kinds_; ++k) {
        const int count = k < kinds_ ? devices_.kindSize(k) : devices_.cpus;
        if (idx / stride_[k] % (count + 1) == 0) continue;
        can_drop_[idx] |= 1u << k;
        with_kind_[k].push_back(idx);
      }
    }
    dp_.assign(static_cast<std::size_t>(lattice.size()) * combos_, kInfinity);
    std::fill(dp_.begin(), dp_.begin() + combos_, 0.0);  // the empty ideal costs nothing
  }

  // False when the budget ran out before the table was complete. A row reads only the rows of
  // sub-ideals, and every sub-ideal of J is reached from J by Hasse edges, so J may be filled as soon
  // as the ideals one node smaller than it are: `threads` threads take ready ideals from a queue
  // (dataflow over the lattice, no barrier between sizes, so one slow ideal does not idle the other
  // threads). A row is computed by the same code in the same order whichever thread takes it, so the
  // table is bit-identical for any number of threads; one thread fills ideals in id order.
  bool fill(int threads, const ProgressFn& progress, const Budget& budget,
            const std::function<bool(std::int64_t, std::int64_t)>& keep_going, SolveStats& stats) {
    const std::int64_t ideals = lattice_.size();
    if (prune_above_ < kInfinity) live_.emplace(problem_, instance_, lattice_, prune_above_, budget);
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
      if (budget.exhausted() || (keep_going && !keep_going(done.load(std::memory_order_relaxed), ideals)))
        stop = true;
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

  double optimum() const { return row(fullIdeal())[combos_ - 1]; }

  // The blocks of an optimal split in pipeline order: walks the table back from the full ideal,
  // re-running the same enumeration (same arithmetic, so bit-identical values) to find the block
  // that achieved each entry. Empty if the table cannot be traced back (a bug).
  std::optional<std::vector<Block>> traceBack() const {
    std::vector<Block> blocks;
    std::int32_t ideal = fullIdeal();
    int idx = combos_ - 1;
    while (ideal != 0) {
      const double target = row(ideal)[idx];
      if (const int unused = unusedDevice(ideal, idx); unused >= 0) {  // that device stays unused
        idx -= stride_[unused];
        continue;
      }
      std::int32_t chosen = -1;
      Block block;
      Walker replay = makeWalker();
      replay.walk(ideal, [&](std::int32_t sub, const State& s) {
        if (chosen != -1) return;
        const double* prev = row(sub);
        for (int k = 0; k <= kinds_ && chosen == -1; ++k) {
          if (!(can_drop_[idx] >> k & 1u)) continue;
          const double cost = k < kinds_ ? accCost(s, k) : cpuCost(s);
          if (std::max(prev[idx - stride_[k]], cost) != target) continue;
          chosen = sub;
          block.accelerator = k < kinds_;
          block.kind = k < kinds_ ? k : 0;
          block.units = replay.block();
          idx -= stride_[k];
        }
      });
      if (chosen == -1) return std::nullopt;
      blocks.push_back(std::move(block));
      ideal = chosen;
    }
    std::reverse(blocks.begin(), blocks.end());
    return blocks;
  }

 private:
  // What one thread needs to fill rows: its own walk state and minima.
  struct RowWorker {
    Walker walker;
    std::vector<double> best_acc, best_cpu;
    RowWorker(Walker w, int combos) : walker(std::move(w)), best_acc(combos), best_cpu(combos) {}
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
    w.walker.walk(ideal, [&](std::int32_t sub, const State& s) {
      ++pairs;
      if (live_ && !live_->any(sub)) return;  // a row of +inf improves nothing
      const double* prev = row(sub);
      for (int k = 0; k < kinds(); ++k) {
        const double acc = accCost(s, k);
        if (!(acc < kInfinity)) continue;
        const int stride = stride_[k];
        for (int idx : with_kind_[k])
          best_acc[idx] = std::min(best_acc[idx], std::max(prev[idx - stride], acc));
      }
      const double cpu = cpuCost(s);
      const int stride = stride_[kinds()];
      for (int idx : with_kind_[kinds()])
        best_cpu[idx] = std::min(best_cpu[idx], std::max(prev[idx - stride], cpu));
    });
    // Leaving a device unused is the same as solving with one device fewer.
    double* cur = row(ideal);
    for (int idx = 0; idx < combos_; ++idx) {
      double v = std::min(best_acc[idx], best_cpu[idx]);
      for (unsigned drop = can_drop_[idx], k = 0; drop != 0; drop >>= 1, ++k) {
        if (drop & 1u) v = std::min(v, cur[idx - stride_[k]]);
      }
      cur[idx] = v;
    }
    return pairs;
  }

  Walker makeWalker() const {
    return Walker(instance_.units, instance_.touches, instance_.weight_touches, problem_, lattice_,
                  prune_above_);
  }
  std::int32_t fullIdeal() const { return static_cast<std::int32_t>(lattice_.size() - 1); }
  // The machine's kinds (a constant 1 where MaxKinds is, so that the loops over kinds fold away).
  int kinds() const { return MaxKinds == 1 ? 1 : kinds_; }
  // The device (kind k < kinds_, or kinds_ for a CPU) entry idx of the ideal's row leaves unused, its
  // value being the entry with that device fewer; -1 if every device is used.
  int unusedDevice(std::int32_t ideal, int idx) const {
    for (int k = 0; k <= kinds_; ++k) {
      if ((can_drop_[idx] >> k & 1u) && row(ideal)[idx - stride_[k]] == row(ideal)[idx]) return k;
    }
    return -1;
  }
  const double* row(std::int32_t ideal) const { return &dp_[static_cast<std::size_t>(ideal) * combos_]; }
  double* row(std::int32_t ideal) { return &dp_[static_cast<std::size_t>(ideal) * combos_]; }
  // A CPU core pays its compute and its boundary work (App. C.1's overlap is for accelerators).
  static double cpuCost(const State& s) { return s.p_cpu + s.cpu_comm; }
  // An accelerator of kind k pays its compute there and the transfers (same on every kind).
  double accCost(const State& s, int k) const {
    if (devices_.kindSize(k) == 0 || s.unsupported > 0 || s.memory > devices_.kindMemory(k)) return kInfinity;
    return acceleratorLoad(problem_.objective.overlap, s.accTime(k), s.comm_in, s.comm_out);
  }

  const Problem& problem_;
  const DpInstance& instance_;
  const IdealLattice& lattice_;
  const DeviceSet& devices_;
  const int kinds_;
  const double prune_above_;
  std::array<int, kDpMaxKinds + 1> stride_{};  // per kind, then the CPUs': one more of it in the row
  int combos_ = 0;                             // entries per row
  std::vector<std::uint8_t> can_drop_;         // per entry: which counts are > 0 (bit per kind, CPUs)
  std::vector<std::vector<int>> with_kind_;    // per kind (CPUs last): the entries whose count is > 0
  std::vector<double> dp_;
  std::optional<LiveRows> live_;  // without an upper bound every entry is live
};

}  // namespace

CapacityRelaxation unitsRelaxation(const DpInstance& instance, const DeviceSet& devices) {
  std::vector<double> p_acc, p_cpu;
  std::vector<std::uint8_t> unsupported;
  for (const Unit& unit : instance.units) {
    p_acc.push_back(unit.fastest(devices.kindCount()));
    p_cpu.push_back(unit.p_cpu);
    unsupported.push_back(unit.unsupported);
  }
  return CapacityRelaxation(p_acc, p_cpu, unsupported, devices.accelerators, devices.cpus);
}

std::vector<CapacityRelaxation::Work> workOfIdeals(const DpInstance& instance, const IdealLattice& lattice,
                                                   const DeviceSet& devices) {
  const int kinds = devices.kindCount();
  std::vector<CapacityRelaxation::Work> work(static_cast<std::size_t>(lattice.size()));
  for (std::int64_t j = 1; j < lattice.size(); ++j) {  // J = (J minus one maximal node) + that node
    const std::int64_t e = lattice.down_begin[j];
    const Unit& unit = instance.units[lattice.down_node[e]];
    work[j] = work[lattice.down_sub[e]];
    work[j].add(unit.fastest(kinds), unit.p_cpu, unit.unsupported);
  }
  return work;
}

TableResult fillTable(const Problem& problem, const DpInstance& instance, const IdealLattice& lattice,
                      double upper_bound, int threads, const ProgressFn& progress, const Budget& budget,
                      const std::function<bool(std::int64_t, std::int64_t)>& keep_going, SolveStats& stats) {
  auto run = [&](auto table) {
    TableResult result;
    if (!table.fill(threads, progress, budget, keep_going, stats)) return result;
    result.complete = true;
    result.optimum = table.optimum();
    if (result.optimum < kInfinity) result.blocks = table.traceBack();
    return result;
  };
  if (problem.devices.mixed()) return run(DpTable<kDpMaxKinds>(problem, instance, lattice, upper_bound));
  return run(DpTable<1>(problem, instance, lattice, upper_bound));
}

}  // namespace placer::dp
