#include "solvers/bounds/certificate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "solvers/bounds/bottleneck_mip.h"
#include "solvers/bounds/cpu_block_bound.h"
#include "solvers/bounds/packing_bound.h"
#include "solvers/bounds/pooled_dp_bound.h"
#include "solvers/bounds/simple_bound.h"

namespace placer {

namespace {

// Names of the methods, as reports give them.
constexpr const char* kSimple = "simple";

void raise(double& lower, std::string& method, double value, const std::string& by) {
  if (value > lower) {
    lower = value;
    method = by;
  }
}

// The contiguous space's max-load bounds beyond the simple one, raising `c`, on the reduced
// problem: the exact DP where it finishes in half of `bound_seconds`; with CPU cores the CPU blocks'
// bound (cpu_block_bound.h) in three quarters of what is left (its program's root relaxation takes a
// good part of a second on a model of a thousand operators); where the DP did not finish, the DP on
// the graph with its floating operators pooled (pooled_dp_bound.h; with CPU cores, on the CPU
// blocks' limit) with what is left of the deadline beyond the bottleneck program's share (without a
// deadline, that share), at least kMinBoundSeconds: on nn.Transformer (775 operators, 89 bypassed,
// 4,977 ideals left) its four DP runs take 0.67 s of the 1.0 s the default 8 s leave it. Returns
// the seconds of the share left for the bottleneck program.
double contiguousBounds(const Problem& solved, Certificate& c, const Budget& budget, double bound_seconds,
                        mip::Backend backend, const ContiguousOptimumFn& contiguous_optimum) {
  double program_seconds = bound_seconds;
  auto since = [](std::chrono::steady_clock::time_point started) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  bool dp_finished = false;
  if (contiguous_optimum && c.lower < c.upper && !budget.interrupted()) {
    const auto started = std::chrono::steady_clock::now();
    if (const std::optional<double> optimum = contiguous_optimum(Budget(bound_seconds / 2, budget.stopFlag()))) {
      raise(c.lower, c.method, *optimum, "dp");
      dp_finished = true;
    }
    program_seconds -= since(started);
  }
  std::optional<double> cpu_take;  // G(upper): what one core's block takes over at most
  if (solved.devices.cpus > 0 && c.lower < c.upper && program_seconds > 0 && !budget.interrupted()) {
    const auto started = std::chrono::steady_clock::now();
    auto blocks =
        contiguousCpuBlockBound(solved, c.upper, Budget(0.75 * program_seconds, budget.stopFlag()), backend);
    if (blocks && *blocks) {
      raise(c.lower, c.method, (*blocks)->value, "cpu-block");
      cpu_take = (*blocks)->per_cpu.acc;
    }
    program_seconds -= since(started);
  }
  if (!dp_finished && c.lower < c.upper && !budget.interrupted() && (solved.devices.cpus == 0 || cpu_take)) {
    const auto started = std::chrono::steady_clock::now();
    const double left = budget.remaining();
    const double seconds = std::isfinite(left) ? left - std::max(0.0, program_seconds) : program_seconds;
    const Budget share(std::max(kMinBoundSeconds, seconds), budget.stopFlag());
    auto pooled = pooledDpBound(solved, c.upper, cpu_take.value_or(0), share);
    if (pooled && *pooled) raise(c.lower, c.method, (*pooled)->value, "pooled-dp");
    program_seconds -= since(started);
  }
  return program_seconds;
}

}  // namespace

Certificate certify(const Problem& solved_problem, const Problem& original_problem, const SolverInfo& solver,
                    const SolveResult& result, const Budget& budget, double bound_seconds,
                    mip::Backend backend, const ContiguousOptimumFn& contiguous_optimum) {
  // The combinatorial bounds see a mixed machine as the one-kind machine it relaxes to, whose
  // optimum is at most the mixed one's (core/problem.h); the contiguous optimum is the kind-aware DP's.
  std::optional<Problem> relaxed_solved, relaxed_original;
  if (solved_problem.devices.mixed()) {
    relaxed_solved = relaxKinds(solved_problem);
    relaxed_original = relaxKinds(original_problem);
  }
  const Problem& solved = relaxed_solved ? *relaxed_solved : solved_problem;
  const Problem& original = relaxed_original ? *relaxed_original : original_problem;
  // The simple bounds' share: what the bottleneck program gets, at least kMinBoundSeconds (their
  // relaxations take milliseconds; the packing program takes a tenth of it).
  const Budget bounds =
      Budget(std::max(kMinBoundSeconds, std::min(budget.remaining(), bound_seconds)), budget.stopFlag());
  Certificate c;
  c.upper = result.value;
  c.space = solver.contiguous ? "contiguous" : "any";
  const bool latency = solved.objective.goal == Goal::Latency;
  const std::string own = result.solver.empty() ? solver.name : result.solver;
  // Every placement: the simple bound of the user's problem; a non-contiguous throughput program's
  // own bound covers every placement too (a non-contiguous latency program's allows q subgraphs per
  // accelerator only).
  if (auto any = simpleBound(original, bounds, backend)) raise(c.any_lower, c.any_method, any->value, kSimple);
  if (!solver.contiguous && !latency && result.bound > 0) raise(c.any_lower, c.any_method, result.bound, own);
  // A contiguous optimum is at least the optimum over every placement; the reductions keep the
  // solver's space's optimum, so the reduced problem's bounds hold in that space.
  c.lower = c.any_lower;
  c.method = c.any_method;
  const Expected<SimpleBound> reduced = simpleBound(solved, bounds, backend);
  if (solver.contiguous) {
    if (reduced) raise(c.lower, c.method, reduced->value, kSimple);
    raise(c.lower, c.method, result.bound, own);
  }
  // Not proven optimal: in the contiguous space the exact DP, the CPU blocks' bound and the pooled
  // DP (contiguousBounds), then the bottleneck program with what is left of the share, in the
  // solver's space, on the reduced problem.
  const bool max_load = !latency && !solved.objective.gpipe;
  double program_seconds = bound_seconds;
  if (max_load && solver.contiguous) {
    program_seconds = contiguousBounds(solved, c, budget, bound_seconds, backend, contiguous_optimum);
  }
  // A non-contiguous answer: the largest operators' packing (packing_bound.h) bounds every placement,
  // on the user's problem (the reductions keep only the contiguous optimum), in half of the share.
  if (max_load && !solver.contiguous && c.lower < c.upper && !budget.interrupted() &&
      !packingBoundDoesNotApply(original)) {
    const auto started = std::chrono::steady_clock::now();
    const Budget share(std::max(kMinBoundSeconds, program_seconds / 2), budget.stopFlag());
    auto packed = packingBound(original, c.upper, share);
    if (packed && *packed) {
      const double value = (*packed)->reaches_upper ? c.upper : (*packed)->value;
      raise(c.any_lower, c.any_method, value, "packing");
      raise(c.lower, c.method, value, "packing");
    }
    program_seconds -= std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (max_load && reduced && c.lower < c.upper && program_seconds > 0 && !budget.interrupted()) {
    const Budget share = Budget(program_seconds, budget.stopFlag());
    if (auto b = bottleneckBound(solved, solver.contiguous, reduced->compute, share, backend)) {
      raise(c.lower, c.method, b->value, "bottleneck");
      if (!solver.contiguous) raise(c.any_lower, c.any_method, b->value, "bottleneck");
    }
  }
  // An optimal answer is its own bound: round-off must not make the ratio exceed 1.
  if (result.status == SolveStatus::Optimal && result.bound >= result.value) c.lower = c.upper;
  c.lower = std::min(c.lower, c.upper);
  c.any_lower = std::min(c.any_lower, c.upper);
  return c;
}

std::string certificateSummary(const Certificate& c) {
  if (c.lower >= c.upper && c.upper > 0) {
    std::string text = c.space == "contiguous" ? "optimal among contiguous splits" : "optimal";
    if (c.space == "contiguous") {
      char more[128];
      if (c.any_lower < c.upper) {
        std::snprintf(more, sizeof more, "; a non-contiguous split could be up to %.1f%% better (%s bound)",
                      100 * (1 - c.any_lower / c.upper), c.any_method.c_str());
      } else {
        std::snprintf(more, sizeof more, ", and no placement is better (%s bound)", c.any_method.c_str());
      }
      text += more;
    }
    return text;
  }
  if (!(c.lower > 0)) return "no lower bound proven";
  // A bound that holds over every placement certifies against the optimum of every placement.
  const bool contiguous_only = c.space == "contiguous" && c.any_lower < c.lower;
  char text[160];
  std::snprintf(text, sizeof text, "certified within %.1f%% of the optimum%s (%s bound)",
                100 * (c.ratio() - 1), contiguous_only ? " among contiguous splits" : "", c.method.c_str());
  return text;
}

std::string answerSummary(const SolveResult& result) {
  if (result.memory_violation.value_or(0) > 0) {
    char text[160];
    std::snprintf(text, sizeof text, "exceeds the accelerators' memory by %.6g bytes: no valid placement",
                  *result.memory_violation);
    return text;
  }
  return certificateSummary(result.certificate);
}

}  // namespace placer
