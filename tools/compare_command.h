// onnx-placer compare: every algorithm on every model of a zoo, in isolated processes, into Markdown,
// JSON, JUnit XML and SVG reports; compared with an earlier run (--baseline); sharded over machines
// (--shard, --merge). The work is in tools/compare/.
#pragma once

#include <vector>

#include "tools/cli_common.h"

namespace placer::cli {

// The help text, with the registry's algorithms.
const char* compareHelp();
std::vector<OptionSpec> compareOptions();
int runCompare(const Args& args);

}  // namespace placer::cli
