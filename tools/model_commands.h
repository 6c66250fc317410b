// The commands that read ONNX models: place, inspect, export-workload (and calibrate, in
// calibrate_command.h, which shares the model and device options).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost_model/device_spec.h"
#include "onnx_io/onnx_model.h"
#include "tools/cli_common.h"

namespace placer::cli {

extern const char* const kPlaceHelp;
extern const char* const kInspectHelp;
extern const char* const kExportWorkloadHelp;

std::vector<OptionSpec> modelOptions();  // the model, device and cost options of every model command
std::vector<OptionSpec> placeOptions();
std::vector<OptionSpec> inspectOptions();
std::vector<OptionSpec> exportWorkloadOptions();

int runPlace(const Args& args);
int runInspect(const Args& args);
int runExportWorkload(const Args& args);

// The placement problem of the MODEL.onnx of `args` (model, device and cost options as for place),
// warnings shown unless --quiet; an exit code (kOk on success, the error reported otherwise).
int loadModelProblem(const Args& args, const char* command, Problem& out);

// --devices FILE|PRESET (default: kDefaultDevicePreset).
Expected<DeviceSpec> resolveDevices(const Args& args);
// --dim NAME=VALUE options into `options`; a usage error's text otherwise.
std::optional<std::string> parseLoadOptions(const Args& args, LoadOptions& options);

}  // namespace placer::cli
