#include "tools/calibrate_command.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cost_model/calibrate_spec.h"
#include "onnx_io/json_text.h"
#include "onnx_io/output_files.h"
#include "tools/interrupt.h"
#include "tools/model_commands.h"

namespace placer::cli {

const char* const kCalibrateHelp = R"(Usage: onnx-placer calibrate MODEL.onnx --profile TRACE.json -o CALIBRATED.json [options]

Fits the effective rates of a device specification to measured operator times of the model: per
op type, operator class (matrix, normalization, elementwise, reduction, movement) and compute type
(fp32, fp16, int8, ...), the achieved FLOP/s, the achieved memory bandwidth and a per-operator
overhead, so that t = overhead + max(FLOPs / rate, bytes / bandwidth) fits the measured times
(least squares on log times and on the total; an op type with fewer than 3 measured operators takes
its class's fit, a class with fewer the fit of all of them). CPU times
in the profile calibrate the CPU cores, other providers' times the accelerators. Writes the
specification with the fitted rates under "calibrated" (and op_overhead 0 for a calibrated kind);
--devices CALIBRATED.json then costs every operator with them. Prints how well the datasheet and the
calibrated specification predict the measured times: per op type and overall, the measured and
predicted totals, the geometric-mean error factor (the mean of max(p/m, m/p), geometrically) and
the Spearman rank correlation.

Record a trace on the target machine, e.g. with ONNX Runtime's profiler on one thread
(tests/ort/run_model.mjs --profile DIR MODEL.onnx does this with onnxruntime-node).

Options:
  --profile FILE          ONNX Runtime profile (or onnx-placer profile JSON); repeatable
  -o, --output FILE       where to write the calibrated specification (atomically; required)
  --devices FILE|PRESET   the specification to calibrate (default: pcie3-4x16gb)
  --dim NAME=VALUE        value of a symbolic input dimension, as for place
  --json                  the report as JSON
  -q, --quiet             no report
)";

std::vector<OptionSpec> calibrateOptions() {
  return {{"profile", true, true}, {"output", true}, {"devices", true}, {"dim", true, true},
          {"json", false},         {"quiet", false}, {"help", false}};
}

namespace {

constexpr std::size_t kWorstShown = 10;

void printSummary(const char* label, const FitSummary& f) {
  std::printf("  %-10s %4d operators, measured %9.4g ms, predicted %9.4g ms (x%.3g), error factor %6.3g, "
              "Spearman %.3f\n",
              label, f.operators, f.measured * 1e3, f.predicted * 1e3, f.measured > 0 ? f.predicted / f.measured : 0,
              f.error_factor, f.spearman);
}

void printReport(const CalibrationReport& r) {
  std::printf("%s:\n", r.kind.c_str());
  printSummary("datasheet", r.before);
  printSummary("calibrated", r.after);
  std::printf("  %-24s %5s %11s %11s %11s %8s %8s\n", "op type", "ops", "measured", "datasheet", "calibrated",
              "err", "err");
  for (const OpTypeFit& t : r.op_types) {
    std::printf("  %-24s %5d %8.4g ms %8.4g ms %8.4g ms %8.3g %8.3g\n", printable(t.op_type).c_str(),
                t.before.operators, t.before.measured * 1e3, t.before.predicted * 1e3, t.after.predicted * 1e3,
                t.before.error_factor, t.after.error_factor);
  }
  for (const std::string& line : r.rates)
    std::printf("  rate %s\n", line.c_str());
  std::vector<const OperatorFit*> worst;
  for (const OperatorFit& op : r.operators)
    worst.push_back(&op);
  std::stable_sort(worst.begin(), worst.end(),
                   [](const OperatorFit* a, const OperatorFit* b) { return afterError(*a) > afterError(*b); });
  worst.resize(std::min<std::size_t>(worst.size(), kWorstShown));
  std::printf("  the %zu operators the calibrated specification predicts worst:\n", worst.size());
  for (const OperatorFit* op : worst) {
    std::printf("    %-40s %-20s measured %9.4g ms, calibrated %9.4g ms (x%.3g)\n", printable(op->node).c_str(),
                printable(op->op_type).c_str(), op->measured * 1e3, op->after * 1e3,
                op->measured > 0 ? op->after / op->measured : 0);
  }
}

}  // namespace

int runCalibrate(const Args& args) {
  if (args.positional.size() != 1) return usageError("calibrate takes one MODEL.onnx", "calibrate");
  auto profiles = args.repeated.find("profile");
  if (profiles == args.repeated.end()) return usageError("calibrate needs --profile TRACE.json", "calibrate");
  if (!args.values.count("output")) return usageError("calibrate needs -o CALIBRATED.json", "calibrate");
  LoadOptions load_options;
  if (auto error = parseLoadOptions(args, load_options)) return usageError(*error, "calibrate");
  auto devices = resolveDevices(args);
  if (!devices) return fail(devices.status());
  auto graph = loadOnnx(args.positional.front(), load_options);
  if (!graph) return fail(graph.status());
  const std::vector<std::filesystem::path> files(profiles->second.begin(), profiles->second.end());
  auto calibration = calibrate(*graph, *devices, files);
  if (!calibration) return fail(calibration.status());
  std::vector<std::filesystem::path> inputs = files;
  inputs.push_back(args.positional.front());
  OutputTransaction outputs(inputs, &interruptFlag());
  const std::string spec = jsonText(deviceSpecToJson(calibration->spec), 2) + "\n";
  if (Status s = outputs.stageFile(args.values.at("output"), spec); !s) return fail(s);
  if (Status s = outputs.commit(); !s) return fail(s);
  if (args.flags.count("quiet")) return kOk;
  if (args.flags.count("json")) {
    nlohmann::ordered_json out;
    out["specification"] = args.values.at("output");
    out["notes"] = calibration->notes;
    out["reports"] = nlohmann::ordered_json::array();
    for (const CalibrationReport& r : calibration->reports)
      out["reports"].push_back(toJson(r));
    std::cout << jsonText(out, 2) << "\n";
    return kOk;
  }
  for (const std::string& note : calibration->notes)
    std::printf("%s\n", note.c_str());
  for (const CalibrationReport& r : calibration->reports)
    printReport(r);
  return kOk;
}

}  // namespace placer::cli
