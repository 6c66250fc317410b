#include "api/replicas.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "core/replicas.h"
#include "core/shared_weights.h"

namespace placer::api {

namespace {

bool hasPlacement(const SolveResult& solve) {
  return !solve.placement.device_of.empty() && std::isfinite(solve.value) &&
         (solve.status == SolveStatus::Optimal || solve.status == SolveStatus::Feasible ||
          solve.status == SolveStatus::TimeLimit);
}

nlohmann::ordered_json candidateJson(int replicas, const Problem& problem, const SolveResult& solve) {
  return {
      {"replicas", replicas},
      {"stages", problem.devices.accelerators},
      {"status", toString(solve.status)},
      {"value", hasPlacement(solve) ? nlohmann::ordered_json(solve.value) : nlohmann::ordered_json(nullptr)},
      {"bound", solve.certificate.lower}};
}

// The chosen candidate's certificate widened to every candidate solved (`chosen` among them): no
// (S, R) beats the least bound.
void widenCertificate(SolveResult& chosen, const std::vector<ReplicatedOutcome>& all) {
  double lower = std::numeric_limits<double>::infinity();
  double any_lower = std::numeric_limits<double>::infinity();
  for (const ReplicatedOutcome& candidate : all) {
    lower = std::min(lower, candidate.outcome.solve.certificate.lower);
    any_lower = std::min(any_lower, candidate.outcome.solve.certificate.any_lower);
  }
  Certificate& c = chosen.certificate;
  if (lower < c.lower) c.method += " (the least over the replica counts)";
  c.lower = std::min(c.lower, lower);
  if (any_lower < c.any_lower) c.any_method += " (the least over the replica counts)";
  c.any_lower = std::min(c.any_lower, any_lower);
  chosen.bound = std::min(chosen.bound, lower);
  chosen.gap = chosen.value > 0 ? std::max(0.0, (chosen.value - chosen.bound) / chosen.value) : 0;
  if (chosen.status == SolveStatus::Optimal && chosen.bound < chosen.value * (1 - 1e-9)) {
    chosen.status = SolveStatus::Feasible;
    chosen.message += (chosen.message.empty() ? "" : "; ") +
                      std::string("optimal for its replica count, not proven best over the others");
  }
}

}  // namespace

Expected<ReplicatedOutcome> runReplicated(const Problem& problem, const PlaceOptions& options,
                                          const RunControl& control, const AllReduceCost* allreduce) {
  ReplicatedOutcome out;
  if (options.replicas == 1) {
    auto outcome = runPipelineOf(problem, options, control);
    if (!outcome) return outcome.status();
    out.outcome = std::move(*outcome);
    return out;
  }
  const bool search = options.replicas == 0;
  // A training graph's all-reduce grows with R: every R is a candidate there.
  const std::vector<int> candidates =
      search ? replicaCandidates(problem.devices, isTraining(problem)) : std::vector<int>{options.replicas};
  const auto start = std::chrono::steady_clock::now();
  const double limit = options.solver.time_limit;
  std::vector<ReplicatedOutcome> solved;
  std::optional<Status> infeasible;  // the first candidate found infeasible
  nlohmann::ordered_json tried = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const int r = candidates[i];
    auto replicated = replicatedProblem(problem, r, allreduce);
    if (!replicated) return replicated.status();
    PlaceOptions share = options;
    if (std::isfinite(limit)) {
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      share.solver.time_limit = std::max(0.0, limit - spent) / static_cast<double>(candidates.size() - i);
    }
    if (control.progress) {
      control.progress({"replicas", static_cast<std::int64_t>(i),
                        static_cast<std::int64_t>(candidates.size()),
                        std::to_string(r) + " replicas of " +
                            std::to_string(replicated->devices.accelerators) + " stages"});
    }
    const int stages = replicated->devices.accelerators;
    auto outcome = runPipelineOf(std::move(*replicated), share, control);
    if (!outcome) {
      // A stage count the model does not fit (fewer accelerators hold less) is one candidate out.
      if (!search || outcome.status().code() != StatusCode::Infeasible) return outcome.status();
      if (!infeasible) infeasible = outcome.status();
      tried.push_back({{"replicas", r},
                       {"stages", stages},
                       {"status", "infeasible"},
                       {"why", outcome.status().message()}});
      continue;
    }
    tried.push_back(candidateJson(r, outcome->problem, outcome->solve));
    solved.push_back({std::move(*outcome), r, {}});
  }
  if (solved.empty()) return *infeasible;  // no stage count fits: R = 1's reason
  std::size_t best = 0;
  for (std::size_t i = 1; i < solved.size(); ++i) {
    const SolveResult& s = solved[i].outcome.solve;
    const SolveResult& b = solved[best].outcome.solve;
    if (hasPlacement(s) && (!hasPlacement(b) || s.value < b.value * (1 - 1e-12))) best = i;
  }
  if (search && hasPlacement(solved[best].outcome.solve))
    widenCertificate(solved[best].outcome.solve, solved);
  out = std::move(solved[best]);
  out.report = {{"replicas", out.replicas},
                {"stages", out.outcome.problem.devices.accelerators},
                {"chosen", search ? "auto: the fastest of the candidates (ties: fewer replicas)" : "given"}};
  if (search) out.report["candidates"] = std::move(tried);
  return out;
}

void nameReplicas(PlacementPlan& plan, const DeviceSet& devices, int replicas) {
  if (replicas == 1) return;
  for (PlannedDevice& device : plan.devices) {
    if (!device.accelerator) continue;
    device.replicas = replicaAccelerators(devices, replicas, device.index);
    device.index = device.replicas.front();
    device.name = "gpu:" + std::to_string(device.index);
  }
}

}  // namespace placer::api
