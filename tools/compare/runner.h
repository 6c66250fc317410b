// Running the cases of `onnx-placer compare`, each as a process of its own.
//
// A case runs `place` (a model), `partition` (a workload) or `evaluate` (an expert split) in a child
// process of the given executable, with its own process group, its own address-space limit and a wall
// time limit: a case that crashes, hangs or runs out of memory ends as that case's outcome, and the
// rest go on. Up to `jobs` cases run at once, each single-threaded (--threads 1), so their times do
// not depend on one another's threads. The children's outputs go to a private temporary directory,
// removed at the end. The stop flag (SIGINT, SIGTERM) kills every running case.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "tools/compare/cases.h"
#include "tools/compare/results.h"

namespace placer::compare {

// AddressSanitizer reserves terabytes of address space for its shadow memory: an address-space limit
// would stop an instrumented onnx-placer before main. Such builds run cases without one by default.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

struct RunSettings {
  std::filesystem::path placer;             // the onnx-placer executable each case runs
  std::vector<std::string> place_args;      // options every `place` case gets
  std::vector<std::string> partition_args;  // options every `partition` case gets
  std::vector<std::string> evaluate_args;   // options every expert (`evaluate`) case gets
  double case_time_limit = 60;              // seconds of wall time before a case is killed
  double case_memory_mb = 0;                // address-space limit of a case (0: none)
  int jobs = 1;
  int repeat = 1;  // runs of each case (times of all, value of the first)
  const std::atomic<bool>* stop = nullptr;
  // Called after each case: cases done, cases in all, the case that just finished.
  std::function<void(int, int, const CaseResult&)> progress;
};

// The results of `cases`, in their order; Interrupted for cases the stop flag ended or never began.
Expected<std::vector<CaseResult>> runCases(const std::vector<Case>& cases, const RunSettings& settings);

// The result of one finished run from its output file (place's report, partition's or evaluate's
// JSON); exposed for tests.
void readCaseOutput(const nlohmann::json& output, CaseResult& result);

}  // namespace placer::compare
