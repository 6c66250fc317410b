// What `onnx-placer compare` records of each case, and the run as a whole: report.json's contents.
//
// report.json is the format a later run reads back (--baseline) and --merge combines, so everything
// the Markdown, JUnit and SVG reports show is in it, and reading it back gives the same report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace placer::compare {

// How a case's run ended.
enum class Outcome {
  Ok,           // a placement (value set)
  Infeasible,   // the method has no placement for this input (exit 3): not a failure of the run
  Failed,       // the solver failed (exit 4: too many ideals, nothing within the time limit, ...)
  Error,        // the run was refused (exit 1 or 2: a bad input or an option the input does not allow)
  Timeout,      // killed after the case's time limit
  Crashed,      // ended by a signal
  OutOfMemory,  // stopped at the case's memory limit
  Interrupted,  // compare itself was interrupted before the case finished
};
const char* toString(Outcome outcome);
Expected<Outcome> outcomeFromString(const std::string& text);
// A run that ended in Failed, Error, Timeout, Crashed or OutOfMemory.
bool isFailure(Outcome outcome);

struct CaseResult {
  std::string model;      // the input's name (cases are matched by model and algorithm)
  std::string kind;       // "model" or "workload"
  std::string algorithm;  // as asked, or "expert"
  Outcome outcome = Outcome::Ok;
  std::optional<double> value;          // the objective's value (max-load, latency or GPipe's), when Ok
  std::vector<double> times;            // wall seconds of each repetition, process start to exit
  std::optional<double> solve_seconds;  // the solver's own time, where the run reports it
  std::optional<double> ratio;          // certified ratio value / lower bound, where certified
  std::optional<double> lower_bound;
  std::optional<double> memory_violation;  // how much the split exceeds the memory (baselines that may)
  std::string solver;                      // what answered ("auto -> dp"), or the expert split's file
  std::string status;                      // the solver's status (optimal, feasible, time-limit, ...)
  std::string message;                     // why it failed, or how it answered
  double peak_memory_mb = 0;               // the largest resident set of the repetitions
  int exit_code = 0;

  double time() const;  // the median of `times` (0 without any)
};

struct Report {
  std::string tool_version;
  std::string objective;   // throughput, latency or gpipe
  nlohmann::json options;  // the options every case ran with (name -> value as given)
  std::vector<std::string> algorithms;
  int jobs = 1;
  int repeat = 1;
  std::string shard;  // "I/N", or empty for a whole run or a merge
  double wall_seconds = 0;
  double case_time_limit = 0;     // seconds a case may run before it is stopped
  double case_memory_mb = 0;      // 0: no limit
  std::vector<CaseResult> cases;  // sorted by (model, algorithm order)
};

nlohmann::ordered_json toJson(const Report& report);
// `source` names the file in errors.
Expected<Report> reportFromJson(const nlohmann::json& json, const std::string& source);

}  // namespace placer::compare
