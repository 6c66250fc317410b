// onnx-placer bound: proven lower bounds on the optimum of a workload or an ONNX model
// (passes/lower_bounds.h).
#pragma once

#include <vector>

#include "tools/cli_common.h"

namespace placer::cli {

extern const char* const kBoundHelp;
std::vector<OptionSpec> boundOptions();
int runBound(const Args& args);

}  // namespace placer::cli
