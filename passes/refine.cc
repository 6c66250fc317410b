#include "passes/refine.h"

#include <iomanip>
#include <sstream>

#include "core/latency.h"
#include "solvers/refine/refine.h"

namespace placer {

Expected<PassResult> RefinePass::run(Problem& problem, const PassOptions&, PipelineState& state) {
  if (!state.solve) return unsupported("nothing to refine: the pipeline has no partition pass before refine");
  PassResult out;
  SolveResult& answer = *state.solve;
  if (answer.placement.device_of.empty()) {
    out.note = "nothing to refine: the solver returned no split";
    return out;
  }
  const bool latency = problem.objective.goal == Goal::Latency;
  RefineOptions options;
  options.contiguous = !latency && !state.non_contiguous;
  const Budget& budget = state.budget();
  options.budget =
      state.followedBy("certify") && budget.hasDeadline() ? budget.within(budget.remaining() / 2) : budget;
  const RefineStats stats = refineResult(problem, answer, options);
  // Checked as the partition pass checks a solver's answer.
  const Status verified = verifyForObjective(problem, answer.placement, options.contiguous);
  if (!verified) return internalError("the refined placement fails verification: " + verified.message());
  std::ostringstream note;
  note << std::setprecision(8) << stats.before << " -> " << stats.after << " (" << stats.moves << " moves, "
       << stats.passes << " passes, " << stats.levels << " levels, "
       << (options.contiguous ? "contiguous" : "non-contiguous") << ")";
  out.note = note.str();
  return out;
}

}  // namespace placer
