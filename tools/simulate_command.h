// onnx-placer simulate: a mapped pipeline's step, operation by operation on the machine's links
// (api/simulate.h).
#pragma once

#include <vector>

#include "tools/cli_common.h"

namespace placer::cli {

extern const char* const kSimulateHelp;
std::vector<OptionSpec> simulateOptions();
int runSimulate(const Args& args);

}  // namespace placer::cli
