// onnx-placer map: maps an existing stage graph onto a machine's devices (api/mapping.h).
#pragma once

#include <vector>

#include "tools/cli_common.h"

namespace placer::cli {

extern const char* const kMapHelp;
std::vector<OptionSpec> mapOptions();
int runMap(const Args& args);

}  // namespace placer::cli
