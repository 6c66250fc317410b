#include "api/bound.h"

#include "onnx_io/json_text.h"

namespace placer::api {

Expected<BoundReport> proveBound(const Problem& problem, BoundSpace space, const std::vector<std::string>& methods,
                                 SolverSettings settings, const std::atomic<bool>* stop) {
  settings.budget = Budget(settings.time_limit, stop);
  return proveLowerBound(problem, space, methods, settings);
}

nlohmann::ordered_json boundReportJson(const BoundReport& report, const std::string& input, const Problem& problem,
                                  mip::Backend mip_backend) {
  nlohmann::ordered_json out;
  out["input"] = input;
  out["objective"] = problem.objective.goal == Goal::Latency ? "latency"
                     : problem.objective.gpipe                ? "gpipe"
                                                              : "throughput";
  out["lowerBound"] = report.lower;
  out["boundMethod"] = report.method.empty() ? "none" : report.method;
  out["boundSpace"] = toString(report.space);
  out["cutShort"] = report.cut_short;
  out["mipSolver"] = mip::toString(mip_backend);
  nlohmann::ordered_json methods = nlohmann::ordered_json::array();
  for (const MethodBound& m : report.methods) {
    methods.push_back(
        {{"method", m.method}, {"lowerBound", m.value}, {"seconds", m.seconds}, {"outcome", m.outcome}});
  }
  out["methods"] = std::move(methods);
  return out;
}

std::string boundReportText(const BoundReport& report, const std::string& input, const Problem& problem,
                            mip::Backend mip_backend) {
  return jsonText(boundReportJson(report, input, problem, mip_backend), 2) + "\n";
}

}  // namespace placer::api
