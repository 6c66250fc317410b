#include "passes/lower_bounds.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <optional>
#include <sstream>

#include "passes/pass_manager.h"
#include "solvers/registry.h"
#include "solvers/bounds/bottleneck_mip.h"
#include "solvers/bounds/cpu_block_bound.h"
#include "solvers/bounds/packing_bound.h"
#include "solvers/bounds/pooled_dp_bound.h"
#include "solvers/bounds/simple_bound.h"

namespace placer {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The DP's optimum, when it proves one within the budget.
MethodBound dpBound(const Problem& problem, const SolveOptions& settings) {
  MethodBound out;
  out.method = "dp";
  PassOptions options;
  options.solver = settings;
  // Its own answer is what is wanted: no certificate.
  auto outcome = runPipeline(problem, defaultPipeline("dp", Goal::Throughput, /*certify=*/false), options);
  if (!outcome) {
    out.outcome = outcome.status().code() == StatusCode::ResourceLimit ? "skipped: " + outcome.status().message()
                                                                        : "failed: " + outcome.status().message();
    return out;
  }
  if (outcome->solve.status == SolveStatus::Optimal) {
    out.value = outcome->solve.value;
    out.outcome = "optimal";
  } else {
    out.outcome = "cut short";  // stopped by the deadline with DPL's split: nothing proven
  }
  return out;
}

// The integer program of the space: what it has proven when it stops.
MethodBound exactBound(const Problem& problem, BoundSpace space, const SolveOptions& settings) {
  MethodBound out;
  out.method = "exact";
  const std::string solver = space == BoundSpace::Contiguous ? "ip" : "ip-noncontig";
  PassOptions options;
  options.solver = settings;
  auto outcome =
      runPipeline(problem, defaultPipeline(solver, problem.objective.goal, /*certify=*/false), options);
  if (!outcome) {
    // Stopped before the program found any split: it proved nothing the simple bound did not.
    const bool stopped = outcome.status().code() == StatusCode::Interrupted ||
                         outcome.status().code() == StatusCode::TimeLimit;
    out.outcome = stopped ? "cut short" : "failed: " + outcome.status().message();
    return out;
  }
  out.value = std::max(0.0, outcome->solve.bound);
  out.outcome = outcome->solve.status == SolveStatus::Optimal ? "optimal" : "cut short";
  return out;
}

// DPL's split, whose max-load is the B the next two methods need, and the problem the DP solves:
// `problem` with the DP's reductions (contracted colocation classes, SCCs, ...: they keep the
// contiguous optimum), a mixed machine relaxed to one kind. nullopt, with the outcome to report in
// `out`, when DPL gives no split within `share`.
struct DplSplit {
  Problem problem;
  double value = 0;
};
std::optional<DplSplit> dplSplit(const Problem& problem, const SolveOptions& settings, const Budget& share,
                                 MethodBound& out) {
  PassOptions options;
  options.solver = settings;
  options.solver.budget = share;
  options.solver.time_limit = share.remaining();
  auto dpl = runPipeline(problem, defaultPipeline("dpl", Goal::Throughput, /*certify=*/false), options);
  if (!dpl) {
    const StatusCode code = dpl.status().code();
    const bool stopped = code == StatusCode::Interrupted || code == StatusCode::TimeLimit;
    out.outcome = stopped ? "cut short" : "failed: " + dpl.status().message();
    return std::nullopt;
  }
  PassRegistry registry;
  registerBuiltinPasses(registry);
  PassManager reductions;
  PipelineState state;
  Problem reduced = problem;
  Status s = reductions.parsePipeline(registry, builtinSolvers().find("dpl")->reductions);
  if (s) s = reductions.run(reduced, options, state);
  if (!s) {
    out.outcome = "failed: " + s.message();
    return std::nullopt;
  }
  return DplSplit{reduced.devices.mixed() ? relaxKinds(reduced) : std::move(reduced), dpl->solve.value};
}

// The CPU blocks' bound (solvers/bounds/cpu_block_bound.h) against DPL's split; `take` gets the
// limit G it proved, for pooled-dp.
MethodBound cpuBlockBound(const Problem& problem, const SolveOptions& settings, const Budget& share,
                          std::optional<double>& take) {
  MethodBound out;
  out.method = "cpu-block";
  if (const std::optional<std::string> why = cpuBlockBoundDoesNotApply(problem)) {
    out.outcome = "skipped: " + *why;
    return out;
  }
  const std::optional<DplSplit> dpl = dplSplit(problem, settings, share, out);
  if (!dpl) return out;
  auto bound = contiguousCpuBlockBound(dpl->problem, dpl->value, share, settings.mip_backend);
  if (!bound) {
    out.outcome = "failed: " + bound.status().message();
  } else if (!*bound) {
    out.outcome = "cut short";  // the block program proved nothing in time
  } else {
    out.value = (*bound)->value;
    take = (*bound)->per_cpu.acc;
    std::ostringstream detail;
    detail << std::setprecision(6) << ((*bound)->per_cpu.cut_short ? "cut short: " : "proven: ")
           << "a core takes over at most " << (*bound)->per_cpu.acc << " of accelerator work within DPL's "
           << dpl->value;
    out.outcome = detail.str();
  }
  return out;
}

// The DP with floating operators pooled (solvers/bounds/pooled_dp_bound.h) against DPL's split,
// with the CPU blocks' limit at DPL's max-load where the machine has cores (`take`, when cpu-block
// has proven it already).
MethodBound pooledDpMethod(const Problem& problem, const SolveOptions& settings, const Budget& share,
                           std::optional<double> take) {
  MethodBound out;
  out.method = "pooled-dp";
  const std::optional<DplSplit> dpl = dplSplit(problem, settings, share, out);
  if (!dpl) return out;
  if (const std::optional<std::string> why = pooledDpBoundDoesNotApply(dpl->problem)) {
    out.outcome = "skipped: " + *why;
    return out;
  }
  if (dpl->problem.devices.cpus == 0) take = 0;
  if (!take) {
    const std::optional<CpuBlockLimit> limit =
        cpuBlockLimit(dpl->problem, dpl->value, share.within(0.5 * share.remaining()), settings.mip_backend);
    if (!limit) {
      out.outcome = "cut short";  // the CPU blocks' program proved nothing in time
      return out;
    }
    take = limit->acc;
  }
  auto bound = pooledDpBound(dpl->problem, dpl->value, *take, share);
  if (!bound) {
    out.outcome = "failed: " + bound.status().message();
  } else if (!*bound) {
    out.outcome = "skipped: no bypass of floating operators leaves a lattice the DP can walk in time";
  } else {
    const PooledDpBound& b = **bound;
    out.value = b.value;
    std::ostringstream detail;
    detail << std::setprecision(6) << (b.cut_short ? "cut short: " : "proven: ") << b.bypassed
           << " operators bypassed (" << b.pool << " of accelerator time pooled), " << b.ideals << " ideals, "
           << b.rounds << " DP runs within DPL's " << dpl->value;
    out.outcome = detail.str();
  }
  return out;
}

// The largest operators' packing (solvers/bounds/packing_bound.h) below DPL's max-load, on the
// user's problem (`relaxed`: a mixed machine as one kind): the DP's reductions keep the contiguous
// optimum only, and the bound holds for every placement.
MethodBound packingMethod(const Problem& problem, const Problem& relaxed, const SolveOptions& settings,
                          const Budget& share) {
  MethodBound out;
  out.method = "packing";
  if (const std::optional<std::string> why = packingBoundDoesNotApply(relaxed)) {
    out.outcome = "skipped: " + *why;
    return out;
  }
  const std::optional<DplSplit> dpl = dplSplit(problem, settings, share, out);
  if (!dpl) return out;
  auto bound = packingBound(relaxed, dpl->value, share);
  std::ostringstream detail;
  detail << std::setprecision(6);
  if (!bound) {
    out.outcome = "failed: " + bound.status().message();
  } else if (!*bound) {
    detail << "skipped: no operator takes accelerator time below DPL's " << dpl->value;
    out.outcome = detail.str();
  } else {
    const PackingBound& b = **bound;
    out.value = b.value;
    detail << (b.cut_short ? "cut short: " : "proven: ") << "the " << b.large
           << " largest operators on the accelerators, " << b.assignments << " assignments, " << b.cuts
           << " minimum cuts, below DPL's " << dpl->value;
    out.outcome = detail.str();
  }
  return out;
}

}  // namespace

const char* toString(BoundSpace space) {
  return space == BoundSpace::Contiguous ? "contiguous" : "any";
}

std::vector<std::string> boundMethods(BoundSpace space, const Objective& objective) {
  std::vector<std::string> out = {"simple"};
  const bool throughput = objective.goal == Goal::Throughput;
  const bool max_load = throughput && !objective.gpipe;
  const bool contiguous_max_load = space == BoundSpace::Contiguous && max_load;
  if (contiguous_max_load) out.insert(out.end(), {"dp", "cpu-block", "pooled-dp"});
  if (max_load) out.insert(out.end(), {"packing", "bottleneck"});
  if (contiguous_max_load) out.push_back("guess");
  // The non-contiguous latency program allows q subgraphs per accelerator: not every placement.
  if (space == BoundSpace::Contiguous || throughput) out.push_back("exact");
  return out;
}

Expected<BoundReport> proveLowerBound(const Problem& problem, BoundSpace space,
                                      const std::vector<std::string>& methods, const SolveOptions& settings) {
  const std::vector<std::string> known = boundMethods(space, problem.objective);
  std::vector<std::string> chosen;
  for (const std::string& m : methods) {
    if (m == "all") {
      chosen = known;
      break;
    }
    if (std::find(known.begin(), known.end(), m) == known.end()) {
      return invalidInput("bound method '" + m + "' does not apply here (" + toString(space) + " space, " +
                          (problem.objective.goal == Goal::Latency ? "latency" : "throughput") +
                          "): the methods are " + joined(known) + " or all");
    }
    if (std::find(chosen.begin(), chosen.end(), m) == chosen.end()) chosen.push_back(m);
  }
  // In the order of boundMethods(): cheap first, so the exact program can be skipped.
  std::vector<std::string> ordered;
  for (const std::string& m : known) {
    if (std::find(chosen.begin(), chosen.end(), m) != chosen.end()) ordered.push_back(m);
  }
  BoundReport report;
  report.space = space;
  SolveOptions timed = settings;
  if (!timed.budget.hasDeadline()) timed.budget = Budget(settings.time_limit, settings.budget.stopFlag());
  bool optimal = false;
  // The combinatorial bounds see a mixed machine as the one-kind machine it relaxes to (core/problem.h);
  // the DP and the integer programs price the kinds apart.
  std::optional<Problem> relaxed_copy;
  if (problem.devices.mixed()) relaxed_copy = relaxKinds(problem);
  const Problem& relaxed = relaxed_copy ? *relaxed_copy : problem;
  // The CPU blocks' limit G, once cpu-block has proven it: pooled-dp needs it too.
  std::optional<double> cpu_take;
  // The simple bound, once: a method of its own and the bottleneck program's threshold.
  std::optional<SimpleBound> simple;
  auto simpleOnce = [&]() -> Status {
    if (simple) return Status::ok();
    auto computed = simpleBound(relaxed, Budget(std::max(0.5, timed.budget.remaining()), timed.budget.stopFlag()),
                                settings.mip_backend);
    if (!computed) return computed.status();
    simple = *computed;
    return Status::ok();
  };
  // The programs share what is left equally (the DP takes what it needs: it proves the optimum or is
  // refused quickly), so a slow bottleneck program does not starve the exact one.
  auto programsFrom = [&](std::size_t i) {
    return std::count_if(ordered.begin() + static_cast<std::ptrdiff_t>(i), ordered.end(),
                         [](const std::string& m) {
                           return m == "cpu-block" || m == "pooled-dp" || m == "packing" || m == "bottleneck" ||
                                  m == "guess" || m == "exact";
                         });
  };
  for (std::size_t index = 0; index < ordered.size(); ++index) {
    const std::string& method = ordered[index];
    const auto started = std::chrono::steady_clock::now();
    const auto programs_left = programsFrom(index);
    const Budget share = programs_left > 1 ? timed.budget.within(timed.budget.remaining() / static_cast<double>(programs_left))
                                           : timed.budget;
    MethodBound bound;
    bound.method = method;
    if (timed.budget.interrupted()) return interrupted("interrupted");
    if (optimal) {
      bound.outcome = "skipped: an earlier method proved the optimum";
    } else if (method == "simple") {
      if (Status s = simpleOnce(); !s) return s;
      bound.value = simple->value;
      bound.outcome = (simple->cut_short ? "cut short: " : "proven: ") + simple->reason;
    } else if (method == "cpu-block") {
      bound = cpuBlockBound(problem, timed, share, cpu_take);
    } else if (method == "pooled-dp") {
      bound = pooledDpMethod(problem, timed, share, cpu_take);
    } else if (method == "packing") {
      bound = packingMethod(problem, relaxed, timed, share);
      if (timed.budget.interrupted()) return interrupted("interrupted");
    } else if (method == "bottleneck" || method == "guess") {
      if (Status s = simpleOnce(); !s) return s;
      auto bottleneck =
          method == "guess"
              ? guessBottleneckBound(relaxed, simple->compute, share, settings.mip_backend)
              : bottleneckBound(relaxed, space == BoundSpace::Contiguous, simple->compute, share, settings.mip_backend);
      if (!bottleneck) return bottleneck.status();
      bound.value = bottleneck->value;
      bound.outcome = (bottleneck->cut_short ? "cut short: " : "proven: ") + bottleneck->detail;
    } else {
      SolveOptions rest = timed;
      if (method == "exact") rest.budget = share;
      rest.time_limit = rest.budget.remaining();
      bound = method == "dp" ? dpBound(problem, rest) : exactBound(problem, space, rest);
    }
    // Ctrl-C: nothing is reported, as a stopped solve reports nothing.
    if (timed.budget.interrupted()) return interrupted("interrupted");
    bound.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    optimal = optimal || bound.outcome == "optimal";
    report.cut_short = report.cut_short || bound.outcome.rfind("cut short", 0) == 0;
    if (bound.value > report.lower) {
      report.lower = bound.value;
      report.method = bound.method;
    }
    report.methods.push_back(std::move(bound));
  }
  if (optimal) report.cut_short = false;
  return report;
}

}  // namespace placer
