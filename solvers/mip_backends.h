// The backends behind mip::solve (solvers/mip.h), for mip.cc only.
//
// solve() checks what every backend needs before it dispatches: the model's numbers are in range
// (outOfRange) and a start, when given, has one value per column. A backend then keeps the contract
// documented in mip.h: statuses, the start (completed, offered, never beaten), the time limit for
// the whole call, the stop flag, progress and the known bound.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "solvers/mip.h"

namespace placer::mip {

// Adds sign × e's terms to `merged`, by column.
void appendTerms(std::map<int, double>& merged, const LinExpr& e, double sign);

// How a backend's call ends when its search has no incumbent of its own: with the completed start
// (`start_values`, of objective `start_objective`; empty when there is none) as a Feasible result
// within the known bound, else with `without_start`; `message` says why. Sets all but the seconds.
void endWithStart(Result& result, const Options& options, const std::vector<double>& start_values,
                  double start_objective, Status without_start, std::string message);

Result solveGlpk(const Model& model, const Options& options);

// mip_cbc.cc: CBC when the build has it (PLACER_HAVE_CBC), otherwise a stub whose solve returns
// a failed call with kNoCbcMessage.
bool cbcBuilt();
Result solveCbc(const Model& model, const Options& options);

}  // namespace placer::mip
