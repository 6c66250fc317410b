// The commands that read ONNX models: place, inspect, export-workload.
#pragma once

#include <vector>

#include "tools/cli_common.h"

namespace placer::cli {

extern const char* const kPlaceHelp;
extern const char* const kInspectHelp;
extern const char* const kExportWorkloadHelp;

std::vector<OptionSpec> placeOptions();
std::vector<OptionSpec> inspectOptions();
std::vector<OptionSpec> exportWorkloadOptions();

int runPlace(const Args& args);
int runInspect(const Args& args);
int runExportWorkload(const Args& args);

}  // namespace placer::cli
