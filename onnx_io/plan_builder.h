// From the solver's placement of an annotated ONNX model (vertex i = OnnxGraph node i) to the
// PlacementPlan the ONNX writers and the report use.
#pragma once

#include <string>

#include "onnx_io/placement_plan.h"
#include "core/problem.h"
#include "core/evaluate.h"
#include "core/solve_result.h"

namespace placer {

PlacementPlan makePlacementPlan(const Problem& problem, const SolveResult& solve,
                                const Evaluation& evaluation, const std::string& algorithm);

}  // namespace placer
