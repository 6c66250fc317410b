// Can a set of units fit c CPU cores and a accelerators with every device's load at most B? A
// necessary condition, cheap enough to ask for every ideal of the exact DP and every prefix of an
// order the slicer cuts, so that both skip the table entries no split of max-load at most B passes
// through (a prefix on its devices, and the rest on the others, must both fit).
//
// The relaxation keeps every feasible split feasible: compute only (transfers and memory only add to
// a device's load or forbid it; every overlap mode's load is at least the compute), units an
// accelerator cannot hold on CPUs, and the CPU time left beyond them taking over accelerator work as
// a fractional knapsack over all the problem's units would (best p_acc / p_cpu first: any subset
// absorbs no more), or at most what one CPU block can when that is known (limitPerCpu). Work may be
// split across devices at will.
#pragma once

#include <cstdint>
#include <vector>

namespace placer {

class CapacityRelaxation {
 public:
  // What a set of units asks of the devices.
  struct Work {
    double acc = 0;              // p_acc of the units an accelerator may hold
    double unsupported_cpu = 0;  // p_cpu of the units only a CPU may hold
    double cpu = 0;              // p_cpu of all units

    void add(double p_acc, double p_cpu, bool unsupported) {
      if (unsupported) {
        unsupported_cpu += p_cpu;
      } else {
        acc += p_acc;
      }
      cpu += p_cpu;
    }
  };

  // Per unit: its accelerator time (the finite part), CPU time, and whether only a CPU may hold it.
  CapacityRelaxation(const std::vector<double>& p_acc, const std::vector<double>& p_cpu,
                     const std::vector<std::uint8_t>& unsupported, int accelerators, int cpus);

  const Work& total() const { return total_; }

  // `work` may fit `cpus` CPU cores and `accs` accelerators, every load at most `bound` (finite).
  bool fits(const Work& work, int cpus, int accs, double bound) const;

  // Contiguous splits only: no CPU core's block takes over more than `acc` of accelerator work
  // within the bound (a core holds one convex block; the exact DP finds the most such a block can
  // take, solvers/dp/table.cc). The knapsack alone lets a core take the best-rate units from all over
  // the graph, which on a model of many small operators is far more than any block of it.
  // A negative `acc`: no limit.
  void limitPerCpu(double acc) { per_cpu_ = acc; }

  // The most accelerator work CPU time `spare` of `cpus` cores can take over (the fractional
  // knapsack, and at most limitPerCpu's a core).
  double absorbable(double spare, int cpus) const;

  // `inside` may fit (c, a) devices and the rest of the units the other devices, at most `bound` each.
  bool live(const Work& inside, int c, int a, double bound) const {
    const Work outside{total_.acc - inside.acc, total_.unsupported_cpu - inside.unsupported_cpu,
                       total_.cpu - inside.cpu};
    return fits(inside, c, a, bound) && fits(outside, cpus_ - c, accelerators_ - a, bound);
  }

 private:
  int accelerators_ = 0, cpus_ = 0;
  Work total_;
  double tolerance_ = 0;                         // rounding of the sums
  double per_cpu_ = -1;                          // limitPerCpu's, or < 0: no limit
  std::vector<double> cpu_prefix_, acc_prefix_;  // the knapsack's items, best rate first
};

}  // namespace placer
