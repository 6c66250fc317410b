#include "solvers/slicegraph/slicer.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "core/evaluate.h"

namespace placer {

namespace {

constexpr std::int32_t kNone = -1;       // no split of the prefix below the bound
constexpr std::int32_t kUnusedAcc = -2;  // the same prefix with one accelerator fewer
constexpr std::int32_t kUnusedCpu = -3;  // the same prefix with one CPU core fewer

// The smallest i in [lo, hi) with pred(i) true, for pred false...true over the range; hi if none.
template <typename Pred>
int firstTrue(int lo, int hi, Pred pred) {
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (pred(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace

void Slicer::reset(const std::vector<int>& order, double below) {
  const int n = static_cast<int>(order.size());
  const int accs = units_.accelerators, cpus = units_.cpus;
  const int combos = (accs + 1) * (cpus + 1);
  const std::size_t stride = stride_ = static_cast<std::size_t>(n) + 1;
  best_.assign(combos * stride, kInfinity);
  choice_.assign(combos * stride, kNone);
  on_acc_.assign(combos * stride, 0);
  minima_.assign(combos, {});
  acc_cache_.assign(n, 0);
  cpu_cache_.assign(n, 0);
  cache_stamp_.assign(n, -1);
  evaluations_ = 0;
  pruning_ = below < kInfinity;
  if (pruning_) {
    // Below a finite bound, the cells [combo][j] whose prefix and rest can both fit their devices.
    live_.assign(combos * stride, 0);
    CapacityRelaxation::Work prefix;
    for (int j = 0; j <= n; ++j) {
      if (j > 0) {
        const int u = order[j - 1];
        prefix.add(units_.p_acc[u], units_.p_cpu[u], units_.unsupported[u] != 0);
      }
      for (int c = 0; c <= cpus; ++c) {
        for (int a = 0; a <= accs; ++a)
          live_[combo(c, a) * stride + j] = relaxation_.live(prefix, c, a, below);
      }
    }
  }
  for (int k = 0; k < combos; ++k) {
    if (!dead(k, 0)) best_[k * stride] = 0;  // the empty prefix costs nothing
    minima_[k].push_back(0);
  }
}

bool Slicer::memoryBinds(const UnitGraph& units) {
  double all_memory = 0;
  for (double m : units.memory)
    all_memory += m;
  for (const auto& w : units.weights)
    all_memory += w.bytes;
  return all_memory > units.memory_limit;
}

void Slicer::pushMinima(int j) {
  for (std::size_t k = 0; k < minima_.size(); ++k) {
    std::vector<int>& stack = minima_[k];
    const double v = best_[k * stride_ + j];
    while (!stack.empty() && best_[k * stride_ + stack.back()] >= v)
      stack.pop_back();
    stack.push_back(j);
  }
}

void Slicer::readRuns(double optimum, std::vector<Run>& runs) const {
  runs.clear();
  if (!(optimum < kInfinity)) return;
  int c = units_.cpus, a = units_.accelerators, j = static_cast<int>(stride_) - 1;  // the order's end
  while (j > 0) {
    const std::size_t cell = combo(c, a) * stride_ + j;
    const std::int32_t ch = choice_[cell];
    if (ch == kUnusedAcc) {
      --a;
    } else if (ch == kUnusedCpu) {
      --c;
    } else {
      runs.push_back({ch, j, on_acc_[cell] != 0});
      (on_acc_[cell] ? a : c) -= 1;
      j = ch;
    }
  }
  std::reverse(runs.begin(), runs.end());
}

double Slicer::slice(const std::vector<int>& order, double below, std::vector<Run>* runs) {
  const int n = static_cast<int>(order.size());
  if (n == 0) {
    if (runs) runs->clear();
    return 0;
  }
  reset(order, below);
  const int accs = units_.accelerators, cpus = units_.cpus;
  const std::size_t stride = stride_;
  SegmentCosts costs(units_, order);

  for (int j = 1; j <= n; ++j) {
    costs.advance(j);
    // Runs ending at j an accelerator can hold start at acc_lo or later (memory only grows as a run
    // extends to the left).
    int acc_lo = accs > 0 ? costs.acceleratorStart() : j;
    if (memory_binds_ && acc_lo < j) {
      acc_lo = firstTrue(acc_lo, j, [&](int i) { return costs.memory(i) <= units_.memory_limit; });
    }
    // The load of the run [i, j), once per j whatever the combination of devices asks it.
    auto runCost = [&](int i, bool acc) {
      if (cache_stamp_[i] != j) {
        const SegmentLoad s = costs.load(i);
        acc_cache_[i] = s.acceleratorCost(units_);
        cpu_cache_[i] = s.cpuCost();
        cache_stamp_[i] = j;
        ++evaluations_;
      }
      return acc ? acc_cache_[i] : cpu_cache_[i];
    };
    // The best run [i, j) after the prefix split `from`: candidates in increasing order of the lower
    // bound max(suffix minimum of best[from][i..j), compute of [i, j)), from the valley's bottom out.
    auto search = [&](int from, int lo, bool acc, double& value, std::int32_t& choice, std::uint8_t& kind) {
      if (lo >= j) return;
      const double* prefix = &best_[from * stride];
      const std::vector<int>& stack = minima_[from];
      auto compute = [&](int i) { return acc ? costs.accCompute(i) : costs.cpuCompute(i); };
      const int count = static_cast<int>(stack.size());
      const int s0 = firstTrue(0, count, [&](int s) { return stack[s] >= lo; });
      const int s1 = firstTrue(s0, count, [&](int s) { return prefix[stack[s]] >= compute(stack[s]); });
      int right = j;
      if (s1 < count) {
        const int from_i = s1 > s0 ? stack[s1 - 1] + 1 : lo;
        const double floor = prefix[stack[s1]];
        right = firstTrue(from_i, stack[s1], [&](int i) { return compute(i) <= floor; });
      }
      int left = right - 1, ptr = s1;
      while (true) {
        const double bound_left = left >= lo ? compute(left) : kInfinity;
        while (ptr < count && stack[ptr] < right)
          ++ptr;
        const double bound_right = right < j && ptr < count ? prefix[stack[ptr]] : kInfinity;
        if (std::min(bound_left, bound_right) >= value) break;
        const int i = bound_right <= bound_left ? right++ : left--;
        if (std::max(prefix[i], compute(i)) >= value) continue;
        const double h = std::max(prefix[i], runCost(i, acc));
        if (h < value) {
          value = h;
          choice = i;
          kind = acc;
        }
      }
    };
    for (int c = 0; c <= cpus; ++c) {
      for (int a = 0; a <= accs; ++a) {
        if ((c == 0 && a == 0) || dead(combo(c, a), j)) continue;
        const std::size_t cell = combo(c, a) * stride + j;
        double value = below;
        std::int32_t choice = kNone;
        std::uint8_t kind = 0;
        if (a > 0 && best_[combo(c, a - 1) * stride + j] < value) {
          value = best_[combo(c, a - 1) * stride + j];
          choice = kUnusedAcc;
        }
        if (c > 0 && best_[combo(c - 1, a) * stride + j] < value) {
          value = best_[combo(c - 1, a) * stride + j];
          choice = kUnusedCpu;
        }
        if (a > 0) search(combo(c, a - 1), acc_lo, true, value, choice, kind);
        if (c > 0) search(combo(c - 1, a), 0, false, value, choice, kind);
        if (choice != kNone) {
          best_[cell] = value;
          choice_[cell] = choice;
          on_acc_[cell] = kind;
        }
      }
    }
    pushMinima(j);
  }

  const double optimum = best_[combo(cpus, accs) * stride + n];
  if (runs) readRuns(optimum, *runs);
  return optimum;
}

Placement placementOfRuns(const Problem& problem, const UnitGraph& units, const std::vector<int>& order,
                          const std::vector<Run>& runs) {
  Placement placement;
  const std::size_t n_vertices = boost::num_vertices(problem.graph);
  placement.device_of.assign(n_vertices, -1);
  placement.stage_of.assign(n_vertices, -1);
  int next_acc = 0, next_cpu = problem.devices.accelerators;
  for (std::size_t stage = 0; stage < runs.size(); ++stage) {
    const Run& run = runs[stage];
    const int device = run.accelerator ? next_acc++ : next_cpu++;
    for (int i = run.begin; i < run.end; ++i) {
      for (Vertex v : units.vertices[order[i]]) {
        placement.device_of[v] = device;
        placement.stage_of[v] = static_cast<int>(stage);
      }
    }
  }
  placement.value = evaluateThroughput(problem, placement.device_of).max_load;
  return placement;
}

std::vector<int> unitOrder(const UnitGraph& units, const std::vector<Vertex>& vertices) {
  std::vector<int> order;
  order.reserve(vertices.size());
  for (Vertex v : vertices) {
    if (v >= units.unit_of.size() || units.unit_of[v] < 0 || units.vertices[units.unit_of[v]].front() != v)
      return {};
    order.push_back(units.unit_of[v]);
  }
  return order;
}

SolveResult sliceOrder(const Problem& problem, const std::vector<Vertex>& order, DpOptions options) {
  const auto start = std::chrono::steady_clock::now();
  SolveResult result;
  auto finish = [&](SolveStatus status, std::string message = {}) {
    result.status = status;
    result.message = std::move(message);
    result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (Status s = checkContracted(problem); !s) return finish(SolveStatus::Error, s.message());
  if (Status s = checkForwardOrder(problem, order); !s) return finish(SolveStatus::Error, s.message());
  const UnitGraph units = makeUnitGraph(problem);
  const std::vector<int> unit_order = unitOrder(units, order);
  Slicer slicer(units);
  std::vector<Run> runs;
  const double below = options.upper_bound < kInfinity ? options.upper_bound * (1 + 1e-9) + 1e-12 : kInfinity;
  const double value = slicer.slice(unit_order, below, &runs);
  result.stats.ideals = static_cast<std::int64_t>(order.size()) + 1;
  result.stats.ideal_pairs = slicer.evaluations();
  if (!(value < kInfinity)) {
    std::ostringstream message;
    const DeviceSet& d = problem.devices;
    message << "no contiguous split of the order onto " << d.accelerators << " accelerator(s) of " << d.memory
            << " bytes and " << d.cpus << " CPU(s) exists";
    if (below < kInfinity) message << " below " << options.upper_bound;
    return finish(SolveStatus::Infeasible, message.str());
  }
  result.placement = placementOfRuns(problem, units, unit_order, runs);
  result.value = result.placement.value;
  result.bound = 0;
  result.gap = result.value > 0 ? 1.0 : 0.0;
  return finish(SolveStatus::Feasible);
}

}  // namespace placer
