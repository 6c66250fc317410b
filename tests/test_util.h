// Shared helpers for the tests: paths to bundled data and the CLI, loading workloads, running the
// default pipeline.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "onnx_io/workload_json.h"
#include "passes/pass_manager.h"

namespace placer::testing {

inline std::filesystem::path dataPath(const std::string& relative) {
  return std::filesystem::path(ONNX_PLACER_TEST_DATA_DIR) / relative;
}

// A bundled ONNX model (tests/data/models/NAME), as a string for command lines.
inline std::string model(const std::string& name) {
  return dataPath("models/" + name).string();
}

inline std::filesystem::path workloadPath(const std::string& relative) {
  return dataPath("workloads/" + relative);
}

inline std::string cliPath() {
  return ONNX_PLACER_CLI;
}

inline Problem loadWorkload(const std::string& relative) {
  auto problem = readWorkload(workloadPath(relative));
  EXPECT_TRUE(problem.hasValue()) << problem.status().message();
  return problem.hasValue() ? std::move(*problem) : Problem{};
}

// Runs one pass as the pass manager does (applyPass), recording what it returned in `state`.
template <typename P>
Status runPass(Problem& problem, PipelineState& state, const PassOptions& options = {}) {
  P pass;
  auto result = applyPass(pass, problem, options, state);
  return result ? Status::ok() : result.status();
}

// The problem after the reductions the exact DP's pipeline runs before it partitions: what
// solveThroughputDp and the other solvers of contracted graphs take.
inline Problem reducedForDp(Problem problem) {
  PassRegistry registry;
  registerBuiltinPasses(registry);
  PassManager manager;
  EXPECT_TRUE(manager.parsePipeline(registry, "subdivide,colocate,orphans,scc,fold-leaves").isOk());
  const Status s = manager.run(problem);
  EXPECT_TRUE(s.isOk()) << s.message();
  return problem;
}

// The default pipeline with the given partition algorithm ("dp" or "dpl").
inline std::string pipelineFor(const std::string& algorithm) {
  return defaultPipeline(algorithm);
}

}  // namespace placer::testing
