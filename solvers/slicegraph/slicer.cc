#include "solvers/slicegraph/slicer.h"

namespace placer {

SolveResult sliceOrder(const Problem& problem, const std::vector<Vertex>& order, DpOptions options) {
  options.linearize = true;
  options.order = order;
  return solveThroughputDp(problem, options);
}

}  // namespace placer
