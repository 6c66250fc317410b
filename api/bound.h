// `bound` through the facade: a proven lower bound on the optimum of a problem (a workload's, or a
// loaded model's) by the methods asked for, within the settings' time limit and the caller's stop
// flag, and the report the CLI prints (input, objective, the best bound, its method and space,
// whether a method was cut short, the MIP solver, each method's bound, time and outcome).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "passes/lower_bounds.h"

namespace placer::api {

// The bound over `space` by `methods` ("all", or names of passes/lower_bounds.h); settings.time_limit
// covers every method, `stop` (may be null) ends them early.
Expected<BoundReport> proveBound(const Problem& problem, BoundSpace space, const std::vector<std::string>& methods,
                                 SolverSettings settings, const std::atomic<bool>* stop);

nlohmann::ordered_json boundReportJson(const BoundReport& report, const std::string& input, const Problem& problem,
                                       mip::Backend mip_backend);
// The same as indented text with a newline, as `bound` writes it.
std::string boundReportText(const BoundReport& report, const std::string& input, const Problem& problem,
                            mip::Backend mip_backend);

}  // namespace placer::api
