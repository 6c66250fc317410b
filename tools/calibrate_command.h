// onnx-placer calibrate: fits a device specification's effective rates to a profile of the model
// (cost_model/calibrate_spec.h) and writes the calibrated specification.
#pragma once

#include <vector>

#include "tools/cli_common.h"

namespace placer::cli {

extern const char* const kCalibrateHelp;
std::vector<OptionSpec> calibrateOptions();
int runCalibrate(const Args& args);

}  // namespace placer::cli
