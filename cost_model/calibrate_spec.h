// `onnx-placer calibrate`: fits a device specification's effective rates (calibration.h) to the
// operator times of a profile of the model (ONNX Runtime's trace, or our own profile format:
// profile_cost_model.h), and reports how well the datasheet and the calibrated specification each
// predict the measured times.
//
// A kind of device (CPU core, accelerator) is calibrated when the profile has times for it: CPU
// times (CPUExecutionProvider) calibrate `cpus`, others `accelerators`. The calibrated section's
// op_overhead becomes 0, since each fitted rate carries its own per-operator overhead.
//
// The fit is judged per operator: the error of a prediction p of a measured time m is the factor
// max(p/m, m/p); the report gives, per op type and overall, the geometric mean of that factor, the
// totals, and the Spearman rank correlation of predicted against measured times.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cost_model/device_spec.h"
#include "cost_model/profile_cost_model.h"
#include "onnx_io/onnx_model.h"

namespace placer {

struct FitSummary {
  int operators = 0;        // operators with a measured time
  double measured = 0;      // seconds, summed
  double predicted = 0;     // seconds, summed
  double error_factor = 1;  // geometric mean of max(p/m, m/p)
  double spearman = 0;      // rank correlation of predicted and measured times (0 when < 2 operators)
};

struct OpTypeFit {
  std::string op_type;
  FitSummary before, after;
};

// One measured operator: its time and the two predictions.
struct OperatorFit {
  std::string node, op_type;
  double measured = 0, before = 0, after = 0;  // seconds
};

struct CalibrationReport {
  std::string kind;  // "cpu" or "accelerator"
  FitSummary before, after;
  std::vector<OpTypeFit> op_types;  // by op type
  std::vector<OperatorFit> operators;  // every measured operator, in graph order
  std::vector<std::string> rates;   // the fitted rates, one line each
};

struct Calibration {
  DeviceSpec spec;                          // the input specification with fitted rates
  std::vector<CalibrationReport> reports;   // one per kind of device calibrated
  std::vector<std::string> notes;           // what the profile matched
};

// How well `spec` predicts the measured times of `profile` (resolved for the graph) on one kind.
FitSummary compareToProfile(const OnnxGraph& graph, const DeviceSpec& spec, const ProfileCostModel& resolved,
                            bool cpu, const std::string& op_type = "");

// Fails when the profiles cannot be read or give no kind of device enough measured operators
// (kMinSamples) to fit.
Expected<Calibration> calibrate(const OnnxGraph& graph, const DeviceSpec& datasheet,
                                const std::vector<std::filesystem::path>& profiles);

// The error factor max(p/m, m/p) of the calibrated prediction.
double afterError(const OperatorFit& op);

nlohmann::ordered_json toJson(const CalibrationReport& report);

}  // namespace placer
