#include "solvers/bounds/cpu_block_bound.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "solvers/bounds/round_off.h"
#include "solvers/bounds/simple_bound.h"

namespace placer {

namespace {

// How far the program's values may be off (its tolerances): G is raised by this much.
constexpr double kProgramSafety = 1e-7;
// The work relaxation after the block program gets at least this much, however long the program
// ran over its share: its linear programs take milliseconds (nn.Transformer's 775 operators: 0.01 s
// each), and without them what the program proved is lost.
constexpr double kRelaxationSeconds = 0.25;

}  // namespace

std::optional<std::string> cpuBlockBoundDoesNotApply(const Problem& problem) {
  const DeviceSet& d = problem.devices;
  if (d.cpus == 0 || d.accelerators == 0) return "the machine has no CPU core or no accelerator";
  const OpGraph& g = problem.graph;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].backward) return "a training graph (its contiguity is the forward graph's)";
  }
  return std::nullopt;
}

std::optional<CpuBlockLimit> cpuBlockLimit(const Problem& problem, double bound, const Budget& budget,
                                           mip::Backend backend) {
  if (cpuBlockBoundDoesNotApply(problem) || !std::isfinite(bound)) return std::nullopt;
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  // Times in units of the bound, so that the program's numbers are near 1.
  const double unit = bound > 0 ? bound : 1.0;
  mip::Model m;
  std::vector<mip::Var> y(n), z(n);
  std::vector<mip::LinExpr> x(n);
  mip::LinExpr cpu_load, taken;
  for (Vertex v = 0; v < n; ++v) {
    y[v] = m.addBinary("y_" + std::to_string(v));
    z[v] = m.addBinary("z_" + std::to_string(v));
    m.addLe(z[v], y[v], "z_in_y");
    x[v] = mip::LinExpr(y[v]) - z[v];
    if (!std::isfinite(g[v].p_cpu)) {
      m.addEq(y[v], z[v], "not_on_cpu");
      continue;
    }
    cpu_load += (g[v].p_cpu / unit) * x[v];
    if (g[v].supportedOnAccelerator()) taken += (g[v].p_acc / unit) * x[v];
  }
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    if (g[*e].artificial) continue;
    const Vertex from = boost::source(*e, g), to = boost::target(*e, g);
    m.addGe(y[from], y[to], "ideal_y");
    m.addGe(z[from], z[to], "ideal_z");
  }
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    if (!(net.cpu_cost > 0)) continue;
    const mip::Var cut = m.addContinuous(0, 1, "cut_" + std::to_string(i));
    for (Vertex sink : net.sinks) {
      m.addGe(cut, x[net.source] - x[sink], "cut_out");
      m.addGe(cut, x[sink] - x[net.source], "cut_in");
    }
    cpu_load.add(cut, net.cpu_cost / unit);
  }
  m.addLe(cpu_load, bound / unit * (1 + kBoundSafety), "cpu_load");
  m.minimize(-1.0 * taken);
  mip::Options options;
  options.backend = backend;
  options.time_limit = budget.remaining();
  options.stop = budget.stopFlag();
  const mip::Result r = mip::solve(m, options);
  // Minimising -G: the program's proven lower bound is -(the most any block can take); stopped by the
  // budget after its root relaxation, that relaxation's optimum at least.
  double proven = -kInfinity;
  if (r.status == mip::Status::Optimal) {
    proven = r.objective;
  } else if (r.status == mip::Status::Feasible || r.status == mip::Status::NoSolution) {
    proven = r.bound;
  }
  if (!std::isfinite(proven)) return std::nullopt;
  return CpuBlockLimit{std::max(0.0, -proven) * unit * (1 + kProgramSafety) + kProgramSafety * unit,
                       r.status != mip::Status::Optimal};
}

Expected<std::optional<CpuBlockBound>> contiguousCpuBlockBound(const Problem& problem, double upper,
                                                               const Budget& budget, mip::Backend backend) {
  // The block program first (nn.Transformer's 775 operators: its root relaxation in 0.23 s, the
  // optimum in 0.6 s); the work relaxation takes milliseconds.
  const double remaining = budget.remaining();
  const std::optional<CpuBlockLimit> limit = cpuBlockLimit(
      problem, upper, std::isfinite(remaining) ? budget.within(0.9 * remaining) : budget, backend);
  if (!limit) return std::optional<CpuBlockBound>();
  const Budget relaxation(std::max(kRelaxationSeconds, budget.remaining()), budget.stopFlag());
  auto relaxed = workBound(problem, limit->acc, relaxation, backend);
  if (!relaxed) return relaxed.status();
  if (!*relaxed) return std::optional<CpuBlockBound>();
  return std::optional<CpuBlockBound>(CpuBlockBound{std::min(**relaxed, upper), *limit});
}

}  // namespace placer
