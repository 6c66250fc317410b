#include "solvers/slicegraph/solve.h"

#include <sstream>

#include "solvers/dp/throughput_dp.h"

namespace placer {

SolveResult solveSliceGraph(const Problem& problem, const OrderSearchOptions& options) {
  SolveResult result;
  if (Status s = checkContracted(problem); !s) {
    result.status = SolveStatus::Error;
    result.message = s.message();
    return result;
  }
  const UnitGraph units = makeUnitGraph(problem);
  const std::vector<int> dfs = unitOrder(units, dfsForwardOrder(problem));
  OrderSearchResult search = searchOrders(units, {dfs}, options);
  result.stats.orders = search.orders;
  result.stats.seconds = search.seconds;
  std::ostringstream message;
  // No times in the message: it goes into outputs, which are the same for the same input (the time
  // limit aside, which can cut a search short: then it says so).
  message << search.orders << " order" << (search.orders == 1 ? "" : "s");
  if (search.cut_short)
    message << " (cut short by the " << (options.limits.budget.interrupted() ? "stop request" : "time limit")
            << ")";
  if (options.limits.budget.interrupted()) {
    result.status = SolveStatus::Interrupted;
    result.message = "interrupted";
    return result;
  }
  if (!(search.value < kInfinity)) {
    const DeviceSet& d = problem.devices;
    message << ": none has a contiguous split onto " << d.accelerators << " accelerator(s) of " << d.memory
            << " bytes and " << d.cpus << " CPU(s) (the exact DP decides whether one exists)";
    result.status = SolveStatus::Infeasible;
    result.message = message.str();
    return result;
  }
  message << ", best from " << search.origin;
  result.placement = placementOfRuns(problem, units, search.order, search.runs);
  result.value = result.placement.value;
  result.bound = 0;
  result.gap = result.value > 0 ? 1.0 : 0.0;
  result.status = SolveStatus::Feasible;
  result.message = message.str();
  return result;
}

}  // namespace placer
