#include "tools/compare/results.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace placer::compare {

namespace {

constexpr std::array<std::pair<Outcome, const char*>, 8> kOutcomes{{
    {Outcome::Ok, "ok"},
    {Outcome::Infeasible, "infeasible"},
    {Outcome::Failed, "failed"},
    {Outcome::Error, "error"},
    {Outcome::Timeout, "timeout"},
    {Outcome::Crashed, "crashed"},
    {Outcome::OutOfMemory, "out-of-memory"},
    {Outcome::Interrupted, "interrupted"},
}};

template <typename T>
void putOptional(nlohmann::ordered_json& out, const char* key, const std::optional<T>& value) {
  out[key] = value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

// A number field that may be null or absent; an error names the case and the field.
Status readOptional(const nlohmann::json& json, const char* key, std::optional<double>& out,
                    const std::string& where) {
  if (!json.contains(key) || json[key].is_null()) return Status::ok();
  if (!json[key].is_number()) return invalidInput(where + ": \"" + key + "\" must be a number or null");
  out = json[key].get<double>();
  return Status::ok();
}

Status readString(const nlohmann::json& json, const char* key, std::string& out, const std::string& where,
                  bool required) {
  if (!json.contains(key))
    return required ? invalidInput(where + ": \"" + key + "\" is missing") : Status::ok();
  if (!json[key].is_string()) return invalidInput(where + ": \"" + key + "\" must be a string");
  out = json[key].get<std::string>();
  return Status::ok();
}

Expected<CaseResult> caseFromJson(const nlohmann::json& json, const std::string& where) {
  if (!json.is_object()) return invalidInput(where + ": a case must be an object");
  CaseResult c;
  std::string outcome;
  for (auto [key, field, required] :
       {std::tuple{"model", &c.model, true}, std::tuple{"algorithm", &c.algorithm, true},
        std::tuple{"outcome", &outcome, true}, std::tuple{"kind", &c.kind, false},
        std::tuple{"solver", &c.solver, false}, std::tuple{"status", &c.status, false},
        std::tuple{"message", &c.message, false}}) {
    if (Status s = readString(json, key, *field, where, required); !s) return s;
  }
  const std::string at = where + " (" + c.model + ", " + c.algorithm + ")";
  auto parsed = outcomeFromString(outcome);
  if (!parsed) return parsed.status().withContext(at);
  c.outcome = *parsed;
  for (auto [key, field] : {std::pair{"value", &c.value}, std::pair{"solveSeconds", &c.solve_seconds},
                            std::pair{"ratio", &c.ratio}, std::pair{"lowerBound", &c.lower_bound},
                            std::pair{"memoryViolation", &c.memory_violation}}) {
    if (Status s = readOptional(json, key, *field, at); !s) return s;
  }
  if (json.contains("times")) {
    if (!json["times"].is_array()) return invalidInput(at + ": \"times\" must be an array of seconds");
    for (const auto& t : json["times"]) {
      if (!t.is_number() || !(t.get<double>() >= 0))
        return invalidInput(at + ": \"times\" holds a non-number");
      c.times.push_back(t.get<double>());
    }
  }
  c.peak_memory_mb = json.value("peakMemoryMB", 0.0);
  c.exit_code = json.value("exitCode", 0);
  if (c.outcome == Outcome::Ok && !c.value) return invalidInput(at + ": an \"ok\" case needs a \"value\"");
  return c;
}

}  // namespace

const char* toString(Outcome outcome) {
  for (const auto& [o, name] : kOutcomes) {
    if (o == outcome) return name;
  }
  return "?";
}

Expected<Outcome> outcomeFromString(const std::string& text) {
  for (const auto& [o, name] : kOutcomes) {
    if (text == name) return o;
  }
  return invalidInput("unknown outcome '" + text + "'");
}

bool isFailure(Outcome outcome) {
  return outcome != Outcome::Ok && outcome != Outcome::Infeasible && outcome != Outcome::Interrupted;
}

double CaseResult::time() const {
  if (times.empty()) return 0;
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

nlohmann::ordered_json toJson(const Report& report) {
  nlohmann::ordered_json out;
  out["tool"] = "onnx-placer compare";
  out["version"] = report.tool_version;
  out["objective"] = report.objective;
  out["options"] = report.options;
  out["algorithms"] = report.algorithms;
  out["jobs"] = report.jobs;
  out["repeat"] = report.repeat;
  if (!report.shard.empty()) out["shard"] = report.shard;
  out["caseTimeLimit"] = report.case_time_limit;
  out["caseMemoryMB"] = report.case_memory_mb;
  out["wallSeconds"] = report.wall_seconds;
  out["cases"] = nlohmann::ordered_json::array();
  for (const CaseResult& c : report.cases) {
    nlohmann::ordered_json j;
    j["model"] = c.model;
    j["kind"] = c.kind;
    j["algorithm"] = c.algorithm;
    j["outcome"] = toString(c.outcome);
    putOptional(j, "value", c.value);
    j["time"] = c.time();
    j["times"] = c.times;
    putOptional(j, "solveSeconds", c.solve_seconds);
    putOptional(j, "ratio", c.ratio);
    putOptional(j, "lowerBound", c.lower_bound);
    putOptional(j, "memoryViolation", c.memory_violation);
    j["solver"] = c.solver;
    j["status"] = c.status;
    j["message"] = c.message;
    j["peakMemoryMB"] = c.peak_memory_mb;
    j["exitCode"] = c.exit_code;
    out["cases"].push_back(std::move(j));
  }
  return out;
}

Expected<Report> reportFromJson(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object() || json.value("tool", "") != "onnx-placer compare")
    return invalidInput(source +
                        ": not a report of onnx-placer compare (no \"tool\": \"onnx-placer compare\")");
  Report report;
  report.tool_version = json.value("version", "");
  report.objective = json.value("objective", "throughput");
  report.options = json.value("options", nlohmann::json::object());
  if (json.contains("algorithms") && json["algorithms"].is_array()) {
    for (const auto& a : json["algorithms"]) {
      if (a.is_string()) report.algorithms.push_back(a.get<std::string>());
    }
  }
  report.jobs = json.value("jobs", 1);
  report.repeat = json.value("repeat", 1);
  report.shard = json.value("shard", "");
  report.case_time_limit = json.value("caseTimeLimit", 0.0);
  report.case_memory_mb = json.value("caseMemoryMB", 0.0);
  report.wall_seconds = json.value("wallSeconds", 0.0);
  if (!json.contains("cases") || !json["cases"].is_array())
    return invalidInput(source + ": \"cases\" must be an array");
  for (std::size_t i = 0; i < json["cases"].size(); ++i) {
    auto c = caseFromJson(json["cases"][i], source + ": cases[" + std::to_string(i) + "]");
    if (!c) return c.status();
    report.cases.push_back(std::move(*c));
  }
  return report;
}

}  // namespace placer::compare
