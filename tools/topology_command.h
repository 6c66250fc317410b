// onnx-placer topology: writes a machine's device specification in the topology form, made by a
// generator (cost_model/topology_generators.h) or taken from a bundled preset.
#pragma once

#include <vector>

#include "tools/cli_common.h"

namespace placer::cli {

extern const char* const kTopologyHelp;
std::vector<OptionSpec> topologyOptions();
int runTopology(const Args& args);

}  // namespace placer::cli
