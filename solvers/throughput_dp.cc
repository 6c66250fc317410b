#include "solvers/throughput_dp.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "core/evaluate.h"
#include "core/threads.h"
#include "solvers/capacity_relaxation.h"
#include "solvers/ideal_lattice.h"

namespace placer {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::int64_t kParallelIdeals = 1000;  // fewer ideals: the table is filled on one thread

// A forward node with its backward partner: what one DP step moves onto a device.
struct Unit {
  double p_acc = 0;  // finite part; `unsupported` says whether an accelerator may hold it at all
  double p_cpu = 0;
  double memory = 0;  // own memory, and shared weights no other unit reads
  bool unsupported = false;
  std::vector<Vertex> vertices;
};

// How adding a unit to the block changes one net: `members` of the net's distinct vertices join,
// and whether the net's producer is among them.
struct NetTouch {
  std::int32_t net;
  std::int32_t members;
  bool source;
};

// How adding a unit changes one shared weight: `readers` of its readers join the block. The block
// holds the weight (once) while any reader is inside.
struct WeightTouch {
  std::int32_t weight;
  std::int32_t readers;
};

// Incremental cost of the block S = I∖I' while the DFS removes nodes from I'.
struct BlockState {
  double p_acc = 0, p_cpu = 0, memory = 0, comm_in = 0, comm_out = 0;
  double cpu_comm = 0;  // cpu_cost of the cut nets: what the block pays on a CPU core
  int unsupported = 0;
};

class BlockWalker {
 public:
  BlockWalker(const std::vector<Unit>& units, const std::vector<std::vector<NetTouch>>& touches,
              const std::vector<std::vector<WeightTouch>>& weight_touches, const Problem& problem,
              const IdealLattice& lattice, double prune_above)
      : units_(units),
        touches_(touches),
        weight_touches_(weight_touches),
        lattice_(lattice),
        devices_(problem.devices),
        prune_above_(prune_above),
        inside_(problem.nets.size(), 0),
        source_inside_(problem.nets.size(), 0),
        readers_inside_(problem.weights.size(), 0) {
    const std::vector<Net>& nets = problem.nets;
    weight_bytes_.reserve(problem.weights.size());
    for (const SharedWeight& w : problem.weights)
      weight_bytes_.push_back(w.bytes);
    net_size_.reserve(nets.size());
    net_cost_.reserve(nets.size());
    net_cpu_cost_.reserve(nets.size());
    for (const Net& net : nets) {
      net_size_.push_back(static_cast<std::int32_t>(net.sinks.size() + 1));
      net_cost_.push_back(net.cost);
      net_cpu_cost_.push_back(net.cpu_cost);
    }
  }

  // Calls visit(sub_ideal, state) for every sub-ideal I' ⊊ I whose block I∖I' survives pruning.
  template <typename Visit>
  void walk(std::int32_t ideal, Visit&& visit) {
    recurse(ideal, std::numeric_limits<std::int32_t>::max(), BlockState{}, visit);
  }

  std::int64_t pruned() const { return pruned_; }
  // Units of the block being visited, in the order the DFS added them.
  const std::vector<int>& block() const { return block_; }

 private:
  // Communication state of a net: 0 = not cut, 1 = cut and producer outside (incoming to S),
  // 2 = cut and producer inside (outgoing from S).
  int netState(std::int32_t net) const {
    if (inside_[net] == 0 || inside_[net] == net_size_[net]) return 0;
    return source_inside_[net] ? 2 : 1;
  }

  bool hopeless(const BlockState& s) const {
    const bool acc_out = s.unsupported > 0 || s.memory > devices_.memory || s.p_acc > prune_above_ ||
                         devices_.accelerators == 0;
    const bool cpu_out = devices_.cpus == 0 || s.p_cpu > prune_above_;
    return acc_out && cpu_out;
  }

  template <typename Visit>
  void recurse(std::int32_t ideal, std::int32_t below, const BlockState& state, Visit& visit) {
    const std::int64_t end = lattice_.down_begin[ideal + 1];
    for (std::int64_t e = lattice_.down_begin[ideal]; e < end; ++e) {
      const std::int32_t node = lattice_.down_node[e];
      if (node >= below) continue;
      const Unit& unit = units_[node];
      BlockState next = state;
      next.p_acc += unit.p_acc;
      next.p_cpu += unit.p_cpu;
      next.memory += unit.memory;
      next.unsupported += unit.unsupported;
      for (const WeightTouch& t : weight_touches_[node]) {
        if (readers_inside_[t.weight] == 0) next.memory += weight_bytes_[t.weight];
        readers_inside_[t.weight] += t.readers;
      }
      if (hopeless(next)) {
        for (const WeightTouch& t : weight_touches_[node])
          readers_inside_[t.weight] -= t.readers;
        ++pruned_;
        continue;
      }
      double delta_in = 0, delta_out = 0, delta_cpu = 0;
      for (const NetTouch& t : touches_[node]) {
        const int before = netState(t.net);
        inside_[t.net] += t.members;
        if (t.source) source_inside_[t.net] = 1;
        const int after = netState(t.net);
        if (before != after) {
          const double c = net_cost_[t.net];
          if (before == 1) delta_in -= c;
          if (before == 2) delta_out -= c;
          if (after == 1) delta_in += c;
          if (after == 2) delta_out += c;
          delta_cpu += net_cpu_cost_[t.net] * ((after != 0) - (before != 0));
        }
      }
      next.comm_in += delta_in;
      next.comm_out += delta_out;
      next.cpu_comm += delta_cpu;
      const std::int32_t sub = lattice_.down_sub[e];
      block_.push_back(node);
      visit(sub, next);
      recurse(sub, node, next, visit);
      block_.pop_back();
      for (const NetTouch& t : touches_[node]) {
        inside_[t.net] -= t.members;
        if (t.source) source_inside_[t.net] = 0;
      }
      for (const WeightTouch& t : weight_touches_[node])
        readers_inside_[t.weight] -= t.readers;
    }
  }

  const std::vector<Unit>& units_;
  const std::vector<std::vector<NetTouch>>& touches_;
  const std::vector<std::vector<WeightTouch>>& weight_touches_;
  const IdealLattice& lattice_;
  const DeviceSet& devices_;
  const double prune_above_;
  std::vector<std::int32_t> inside_;
  std::vector<std::uint8_t> source_inside_;
  std::vector<std::int32_t> net_size_;
  std::vector<double> net_cost_;
  std::vector<double> net_cpu_cost_;
  std::vector<std::int32_t> readers_inside_;
  std::vector<double> weight_bytes_;
  std::int64_t pruned_ = 0;
  std::vector<int> block_;
};

// Topological order of the units chosen so that a DFS-like walk visits them (a stack, not a queue,
// of ready nodes, as in §5.1.2): consecutive nodes in it become DPL's artificial path.
std::vector<int> dfsTopologicalOrder(const std::vector<std::vector<int>>& preds,
                                     const std::vector<std::vector<int>>& succs) {
  const int n = static_cast<int>(preds.size());
  std::vector<int> indegree(n);
  std::vector<int> stack, order;
  for (int v = n - 1; v >= 0; --v) {
    indegree[v] = static_cast<int>(preds[v].size());
    if (indegree[v] == 0) stack.push_back(v);
  }
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    order.push_back(v);
    for (auto it = succs[v].rbegin(); it != succs[v].rend(); ++it) {
      if (--indegree[*it] == 0) stack.push_back(*it);
    }
  }
  return order;
}

// The DP's view of a contracted problem: units (forward node + backward partner) indexed along a
// topological order of the forward graph, their predecessors (with DPL's chain when linearised),
// and how each unit touches each net and each shared weight.
struct DpInstance {
  std::vector<Unit> units;
  std::vector<std::vector<int>> preds;
  std::vector<std::vector<NetTouch>> touches;
  std::vector<std::vector<WeightTouch>> weight_touches;
};

// `order`: with linearize, the forward vertices in the order to slice (empty: a DFS order, DPL's).
DpInstance prepareInstance(const Problem& problem, bool linearize, const std::vector<Vertex>& order = {}) {
  const OpGraph& g = problem.graph;
  const std::size_t n_vertices = boost::num_vertices(g);
  std::vector<Vertex> forward = *forwardTopologicalOrder(g);
  const int n = static_cast<int>(forward.size());
  std::vector<int> unit_of(n_vertices, -1);
  auto index_units = [&] {
    for (int i = 0; i < n; ++i)
      unit_of[forward[i]] = i;
  };
  std::vector<std::vector<int>> preds, succs;
  auto adjacency = [&] {
    preds.assign(n, {});
    succs.assign(n, {});
    for (auto [it, end] = boost::edges(g); it != end; ++it) {
      int a = unit_of[boost::source(*it, g)], b = unit_of[boost::target(*it, g)];
      if (a < 0 || b < 0) continue;
      preds[b].push_back(a);
      succs[a].push_back(b);
    }
    for (auto* lists : {&preds, &succs}) {
      for (auto& l : *lists) {
        std::sort(l.begin(), l.end());
        l.erase(std::unique(l.begin(), l.end()), l.end());
      }
    }
  };
  index_units();
  adjacency();
  if (linearize) {
    // Re-index the units along a DFS topological order and chain consecutive ones.
    std::vector<Vertex> reordered(n);
    if (order.empty()) {
      const std::vector<int> dfs = dfsTopologicalOrder(preds, succs);
      for (int i = 0; i < n; ++i)
        reordered[i] = forward[dfs[i]];
    } else {
      reordered = order;
    }
    forward.swap(reordered);
    index_units();
    adjacency();
    for (int i = 1; i < n; ++i) {
      if (std::find(preds[i].begin(), preds[i].end(), i - 1) == preds[i].end()) preds[i].push_back(i - 1);
    }
  }

  DpInstance instance;
  instance.preds = std::move(preds);
  instance.units.resize(n);
  std::map<int, Vertex> backward_of_class;
  for (Vertex v = 0; v < n_vertices; ++v) {
    if (g[v].backward) backward_of_class[*g[v].colocation] = v;
  }
  std::vector<int> owner(n_vertices, -1);  // unit holding each vertex
  for (int i = 0; i < n; ++i) {
    Unit& unit = instance.units[i];
    unit.vertices.push_back(forward[i]);
    if (const OpNode& f = g[forward[i]]; f.colocation) {
      if (auto it = backward_of_class.find(*f.colocation); it != backward_of_class.end()) {
        unit.vertices.push_back(it->second);
      }
    }
    for (Vertex v : unit.vertices) {
      owner[v] = i;
      if (g[v].supportedOnAccelerator()) {
        unit.p_acc += g[v].p_acc;
      } else {
        unit.unsupported = true;
      }
      unit.p_cpu += g[v].p_cpu;
      unit.memory += g[v].memory;
    }
  }
  instance.touches.resize(n);
  for (std::size_t k = 0; k < problem.nets.size(); ++k) {
    const Net& net = problem.nets[k];
    std::map<int, std::pair<int, bool>> per_unit;
    per_unit[owner[net.source]] = {1, true};
    for (Vertex s : net.sinks)
      ++per_unit[owner[s]].first;
    if (per_unit.size() < 2) continue;  // inside one unit: never cut
    for (const auto& [unit, touch] : per_unit) {
      instance.touches[unit].push_back({static_cast<std::int32_t>(k), touch.first, touch.second});
    }
  }
  instance.weight_touches.resize(n);
  for (std::size_t w = 0; w < problem.weights.size(); ++w) {
    std::map<int, int> per_unit;
    for (Vertex r : problem.weights[w].readers)
      ++per_unit[owner[r]];
    if (per_unit.size() == 1) {  // read by one unit only: its own memory
      instance.units[per_unit.begin()->first].memory += problem.weights[w].bytes;
      continue;
    }
    for (const auto& [unit, readers] : per_unit)
      instance.weight_touches[unit].push_back({static_cast<std::int32_t>(w), readers});
  }
  return instance;
}

// The ideals whose Hasse children are all filled, for the parallel fill: each ideal counts its
// unfilled children, and the last child to finish hands it to the queue.
class ReadyQueue {
 public:
  explicit ReadyQueue(const IdealLattice& lattice) {
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
    finished(0, first);  // the empty ideal
  }

  // Takes a ready ideal, waiting for one; false once the queue is closed and empty.
  bool pop(std::int32_t& ideal) {
    std::unique_lock<std::mutex> lock(mutex_);
    available_.wait(lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return false;
    ideal = queue_.front();
    queue_.pop_front();
    return true;
  }

  // `ideal` is filled: its parents with no unfilled child left become ready.
  void finished(std::int32_t ideal, std::vector<std::int32_t>& unlocked) {
    unlocked.clear();
    for (std::int64_t e = up_begin_[ideal]; e < up_begin_[ideal + 1]; ++e) {
      const std::int32_t parent = up_parent_[e];
      if (pending_[parent].fetch_sub(1) == 1) unlocked.push_back(parent);
    }
    if (unlocked.empty()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.insert(queue_.end(), unlocked.begin(), unlocked.end());
    }
    if (unlocked.size() == 1) {
      available_.notify_one();
    } else {
      available_.notify_all();
    }
  }

  // Wakes every waiting thread; pop() returns false from now on once the queue is empty.
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
      queue_.clear();
    }
    available_.notify_all();
  }

 private:
  std::vector<std::atomic<std::int32_t>> pending_;  // per ideal: Hasse children not yet filled
  std::vector<std::int64_t> up_begin_;               // CSR of the Hasse edges upwards
  std::vector<std::int32_t> up_parent_;
  std::mutex mutex_;
  std::condition_variable available_;
  std::deque<std::int32_t> queue_;
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

// A block of an optimal split: the units one device holds.
struct Block {
  std::vector<int> units;
  bool accelerator = false;
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
    auto checkBudget = [&](int t, std::int64_t filled) {
      if ((filled & 63) != 0) return;
      if (budget.exhausted()) stop = true;
      if (t == 0) report();
    };
    if (threads == 1) {
      RowWorker w(makeWalker(), combos_);
      for (std::int64_t ideal = 1; ideal < ideals && !stop; ++ideal) {
        counts[0].pairs.fetch_add(fillRow(static_cast<std::int32_t>(ideal), w), std::memory_order_relaxed);
        done.fetch_add(1, std::memory_order_relaxed);
        checkBudget(0, ideal);
      }
      counts[0].pruned = w.walker.pruned();
    } else {
      ReadyQueue ready(lattice_);
      auto work = [&](int t) {
        RowWorker w(makeWalker(), combos_);
        std::vector<std::int32_t> unlocked;
        std::int64_t filled = 0;
        for (std::int32_t ideal; !stop.load(std::memory_order_relaxed) && ready.pop(ideal);) {
          counts[t].pairs.fetch_add(fillRow(ideal, w), std::memory_order_relaxed);
          const std::int64_t total = done.fetch_add(1) + 1;
          checkBudget(t, ++filled);
          if (total == ideals || stop.load(std::memory_order_relaxed)) {
            ready.close();
            break;
          }
          ready.finished(ideal, unlocked);
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

Status checkContracted(const Problem& problem) {
  const OpGraph& g = problem.graph;
  std::map<int, Vertex> forward_of_class, backward_of_class;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (!g[v].colocation) {
      if (g[v].backward) {
        return invalidInput(describeNode(g, v) +
                            " is a backward node with no forward partner; run the orphans pass "
                            "before partitioning");
      }
      continue;
    }
    auto& of_class = g[v].backward ? backward_of_class : forward_of_class;
    if (!of_class.emplace(*g[v].colocation, v).second) {
      return invalidInput("colocation class " + std::to_string(*g[v].colocation) + " has several " +
                          (g[v].backward ? "backward" : "forward") +
                          " nodes; run the colocate pass before partitioning");
    }
  }
  for (const auto& [cls, v] : backward_of_class) {
    if (!forward_of_class.count(cls)) {
      return invalidInput(describeNode(g, v) +
                          " is a backward node with no forward partner; run the orphans pass "
                          "before partitioning");
    }
  }
  if (auto cycle = findCycle(g, /*forward_only=*/true); !cycle.empty()) {
    return invalidInput("the forward graph has a cycle through " + describeNode(g, cycle.front()) +
                        "; run the scc pass before partitioning");
  }
  return Status::ok();
}

Status checkForwardOrder(const Problem& problem, const std::vector<Vertex>& order) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  std::vector<int> position(n, -1);
  std::size_t forward = 0;
  for (Vertex v = 0; v < n; ++v)
    forward += !g[v].backward;
  if (order.size() != forward) {
    return invalidInput("the order has " + std::to_string(order.size()) + " vertices, the forward graph " +
                        std::to_string(forward));
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Vertex v = order[i];
    if (v >= n || g[v].backward || position[v] >= 0)
      return invalidInput("the order's entry " + std::to_string(i) + " is not a new forward vertex");
    position[v] = static_cast<int>(i);
  }
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex u = boost::source(*it, g), w = boost::target(*it, g);
    if (g[u].backward || g[w].backward) continue;
    if (position[u] > position[w]) {
      return invalidInput("the order puts " + describeNode(g, w) + " before its predecessor " +
                          describeNode(g, u));
    }
  }
  return Status::ok();
}

std::vector<Vertex> dfsForwardOrder(const Problem& problem) {
  const DpInstance instance = prepareInstance(problem, /*linearize=*/true);
  std::vector<Vertex> order;
  order.reserve(instance.units.size());
  for (const Unit& unit : instance.units)
    order.push_back(unit.vertices.front());
  return order;
}

SolveResult solveThroughputDp(const Problem& problem, const DpOptions& options) {
  const auto start = Clock::now();
  SolveResult result;
  auto finish = [&](SolveStatus status, std::string message = {}) {
    result.status = status;
    result.message = std::move(message);
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  };
  if (Status s = checkContracted(problem); !s) return finish(SolveStatus::Error, s.message());

  if (!options.order.empty()) {
    if (!options.linearize) return finish(SolveStatus::Error, "an order to slice needs the linearised DP");
    if (Status s = checkForwardOrder(problem, options.order); !s)
      return finish(SolveStatus::Error, s.message());
  }
  const DpInstance instance = prepareInstance(problem, options.linearize, options.order);
  IdealLattice lattice;
  auto outOfBudget = [&](const std::string& phase) {
    if (options.budget.interrupted()) return finish(SolveStatus::Interrupted, "interrupted while " + phase);
    return finish(SolveStatus::TimeLimit, "time limit reached while " + phase);
  };
  if (Status s = buildLattice(instance.preds, options.max_ideals, options.budget, options.progress, lattice);
      !s) {
    if (options.budget.exhausted()) return outOfBudget("generating ideals");
    return finish(SolveStatus::ResourceLimit, s.message());
  }
  result.stats.ideals = lattice.size();

  DpTable table(problem, instance, lattice, options.upper_bound);
  if (!table.fill(threadCount(options.threads), options.progress, options.budget, result.stats)) return outOfBudget("filling the DP table");
  const double optimum = table.optimum();
  const DeviceSet& devices = problem.devices;
  if (!(optimum < kInfinity)) {
    std::ostringstream message;
    message << "no contiguous split onto " << devices.accelerators << " accelerator(s) of " << devices.memory
            << " bytes and " << devices.cpus << " CPU(s) exists";
    return finish(SolveStatus::Infeasible, message.str());
  }
  std::optional<std::vector<Block>> blocks = table.traceBack();
  if (!blocks) return finish(SolveStatus::Error, "internal error: the DP table could not be traced back");

  // Accelerators and CPUs are numbered in pipeline order.
  Placement& placement = result.placement;
  const std::size_t n_vertices = boost::num_vertices(problem.graph);
  placement.device_of.assign(n_vertices, -1);
  placement.stage_of.assign(n_vertices, -1);
  int next_acc = 0, next_cpu = devices.accelerators;
  for (std::size_t stage = 0; stage < blocks->size(); ++stage) {
    const Block& block = (*blocks)[stage];
    const int device = block.accelerator ? next_acc++ : next_cpu++;
    for (int u : block.units) {
      for (Vertex v : instance.units[u].vertices) {
        placement.device_of[v] = device;
        placement.stage_of[v] = static_cast<int>(stage);
      }
    }
  }
  placement.value = optimum;
  result.value = optimum;
  result.bound = options.linearize ? 0 : optimum;  // DPL is a heuristic: no certificate
  result.gap = options.linearize && optimum > 0 ? 1.0 : 0.0;
  return finish(options.linearize ? SolveStatus::Feasible : SolveStatus::Optimal);
}

}  // namespace placer
