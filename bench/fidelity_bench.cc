// fidelity_bench: how faithful the costs are on every bundled model and issue-10 fixture (build/bench/
// fidelity_bench [--no-ort] [--runs N] [--dim NAME=VALUE]... [MODEL.onnx ...]).
//
// Per model: operators, tensors without a static shape, operators on the fallback cost, and the
// multiply-accumulates against the published (or, for the fixtures, hand-computed) figure; then,
// with ONNX Runtime's CPU profiler on this machine (tests/ort/run_model.mjs --profile: one thread,
// basic graph optimisations, N runs), the Spearman rank correlation of predicted against measured
// per-operator CPU times and the ratio of predicted to measured total time, with the cpu-only-8
// datasheet figures and after `calibrate` fitted them to that trace. Targets (issue 10): 0 unknown
// shapes and 0 fallback costs everywhere, MACs within 3% of the reference, and after calibration a
// rank correlation >= 0.9 and a total within 20% on every bundled model (tests/data/models; the
// fixtures' operators take microseconds, where the profiler's noise sets the ranks, so their rank
// and total are printed but not judged).
//
// Symbolic input dimensions take the --dim values in both the loader and ONNX Runtime (default
// seq=128, the BERT fixtures' fixed length; others 1), so the GPT-2-style decoders run a 128-token
// prompt. At seq=1 (one decoding step without a cache) their operators take 2-8 us, the trace's
// 1 us resolution sets their ranks, and the light form's identical weights let ONNX Runtime keep
// layers 1-11 in cache while layer 0 and the vocabulary projection stream from memory (measured:
// the first MLP MatMul 2.7x slower than the others); README.md gives that case's figures.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/run_program.h"
#include "cost_model/calibrate_spec.h"
#include "cost_model/cost_model.h"
#include "cost_model/cost_sources.h"
#include "cost_model/fidelity.h"

namespace fs = std::filesystem;
using namespace placer;

namespace {

const fs::path kData = PLACER_BENCH_DATA_DIR;
const fs::path kRunModel = PLACER_BENCH_RUN_MODEL;

// Published multiply-accumulates per sample (torchvision's model tables count MACs as "GFLOPS"; the
// zoo models are the same architectures), and the hand-computed ones of the fixtures.
std::map<std::string, double> references() {
  std::map<std::string, double> refs{
      {"resnet50_light.onnx", 4.09e9},  {"light_resnet50.onnx", 4.09e9}, {"vgg16_light.onnx", 15.47e9},
      {"light_vgg19.onnx", 19.63e9},    {"mobilenet_v2_light.onnx", 0.30e9}, {"inception_v3_light.onnx", 5.71e9},
      {"googlenet_light.onnx", 1.50e9}, {"swin_t_light.onnx", 4.49e9}};
  std::ifstream in(kData / "fidelity/expected.json");
  const nlohmann::json expected = nlohmann::json::parse(in);
  for (const auto& [file, entry] : expected.items())
    refs[file] = entry.at("macs").get<double>();
  return refs;
}

struct Row {
  std::string model;
  bool bundled = false;  // tests/data/models: the rank and total targets apply
  std::size_t operators = 0;
  int unknown = 0, fallback = 0;
  double macs = 0;
  std::optional<double> reference;
  std::optional<FitSummary> before, after;
  std::string note;
};

bool runnable(const fs::path& model) {
  const std::string name = model.filename().string();
  return name != "contrib_unrunnable.onnx" && name != "llama7b_light.onnx";
}

// The model loaded with the --dim values, or without them when it has none of those dimensions.
Expected<OnnxGraph> loadModel(const fs::path& model, LoadOptions& load) {
  auto graph = loadOnnx(model, load);
  if (graph || load.dims.empty() || graph.status().message().find("no input has a symbolic dimension") == std::string::npos)
    return graph;
  load.dims.clear();
  return loadOnnx(model, load);
}

void profileRows(std::vector<Row>& rows, const std::vector<fs::path>& models, int runs, const LoadOptions& load) {
  const fs::path dir = fs::temp_directory_path() / ("fidelity_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (std::size_t i = 0; i < models.size(); ++i) {
    Row& row = rows[i];
    LoadOptions model_load = load;
    auto graph = loadModel(models[i], model_load);
    if (!graph) continue;  // the row says why
    if (!runnable(models[i])) {
      row.note = "not run in ONNX Runtime (CPU)";
      continue;
    }
    std::string why;
    std::vector<std::string> command = {"node", kRunModel.string(), "--int-range", "2", "--profile", dir.string(),
                                        "--runs", std::to_string(runs)};
    for (const auto& [name, value] : model_load.dims) {
      command.push_back("--dim");
      command.push_back(name + "=" + std::to_string(value));
    }
    command.push_back(models[i].string());
    const int rc = bench::runProgram(command, (dir / "run.out").string(), (dir / "run.err").string(), &why);
    const fs::path trace = dir / (models[i].stem().string() + ".json");
    if (rc != 0 || !fs::exists(trace)) {
      row.note = "profiling failed" + (why.empty() ? "" : ": " + why);
      continue;
    }
    auto spec = devicePreset("cpu-only-8");
    auto calibration = calibrate(*graph, *spec, {trace});
    if (!calibration || calibration->reports.empty()) {
      row.note = calibration ? "no CPU times" : calibration.status().message();
      continue;
    }
    row.before = calibration->reports.front().before;
    row.after = calibration->reports.front().after;
  }
  fs::remove_all(dir);
}

std::string fmt(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  bool ort = true;
  int runs = 10;
  LoadOptions load;
  load.dims["seq"] = 128;
  std::vector<fs::path> models;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-ort") {
      ort = false;
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--dim" && i + 1 < argc) {
      const std::string dim = argv[++i];
      const std::size_t eq = dim.find('=');
      const long long value = eq == std::string::npos ? 0 : std::atoll(dim.c_str() + eq + 1);
      if (eq == 0 || value < 1) {
        std::fprintf(stderr, "fidelity_bench: --dim takes NAME=VALUE with VALUE >= 1, not '%s'\n", dim.c_str());
        return 2;
      }
      load.dims[dim.substr(0, eq)] = value;
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: fidelity_bench [--no-ort] [--runs N] [--dim NAME=VALUE]... [MODEL.onnx ...]\n");
      return 2;
    } else {
      models.emplace_back(arg);
    }
  }
  if (models.empty()) {
    for (const char* dir : {"models", "fidelity", "scale"}) {
      std::vector<fs::path> found;
      for (const auto& e : fs::directory_iterator(kData / dir)) {
        if (e.path().extension() == ".onnx" && e.path().filename() != "llama7b_light.onnx") found.push_back(e.path());
      }
      std::sort(found.begin(), found.end());
      models.insert(models.end(), found.begin(), found.end());
    }
  }
  const auto refs = references();
  std::vector<Row> rows;
  for (const fs::path& model : models) {
    Row row;
    row.model = model.filename().string();
    row.bundled = model.parent_path().filename() == "models";
    LoadOptions model_load = load;
    auto graph = loadModel(model, model_load);
    if (!graph) {
      row.note = graph.status().message();
      rows.push_back(row);
      continue;
    }
    auto spec = devicePreset("cpu-only-8");
    auto annotation = annotateModel(*graph, *spec, {});
    const CostFidelity fidelity = costFidelity(*graph, *annotation);
    row.operators = graph->nodes.size();
    row.unknown = fidelity.tensors_without_shape;
    row.fallback = fidelity.fallback;
    for (int v = 0; v < static_cast<int>(graph->nodes.size()); ++v)
      row.macs += estimateWork(shapeInfo(*graph, v)).macs;
    if (auto it = refs.find(row.model); it != refs.end()) row.reference = it->second;
    rows.push_back(row);
  }
  if (ort) profileRows(rows, models, runs, load);

  std::printf("%-28s %6s %7s %8s %11s %11s %7s | %8s %8s | %8s %8s  %s\n", "model", "ops", "unknown", "fallback",
              "GMACs", "reference", "diff", "rho", "rho cal", "total", "tot cal", "");
  int failures = 0;
  for (const Row& r : rows) {
    std::string diff = "-", ref = "-";
    bool ok = r.unknown == 0 && r.fallback == 0 && r.note.find("profiling failed") == std::string::npos;
    if (r.reference) {
      ref = fmt("%.4g", *r.reference / 1e9);
      const double d = *r.reference > 0 ? r.macs / *r.reference - 1 : r.macs;
      diff = fmt("%+.1f%%", 100 * d);
      ok = ok && std::fabs(d) <= 0.03;
    }
    std::string rho = "-", rho_cal = "-", total = "-", total_cal = "-";
    if (r.before && r.after) {
      rho = fmt("%.3f", r.before->spearman);
      rho_cal = fmt("%.3f", r.after->spearman);
      total = fmt("x%.3f", r.before->predicted / r.before->measured);
      total_cal = fmt("x%.3f", r.after->predicted / r.after->measured);
      if (r.bundled) ok = ok && r.after->spearman >= 0.9 && std::fabs(r.after->predicted / r.after->measured - 1) <= 0.2;
    }
    failures += ok ? 0 : 1;
    std::printf("%-28s %6zu %7d %8d %11.4g %11s %7s | %8s %8s | %8s %8s  %s%s\n", r.model.c_str(), r.operators,
                r.unknown, r.fallback, r.macs / 1e9, ref.c_str(), diff.c_str(), rho.c_str(), rho_cal.c_str(),
                total.c_str(), total_cal.c_str(), ok ? "PASS" : "FAIL", r.note.empty() ? "" : ("  " + r.note).c_str());
  }
  std::printf("\n%d of %zu models miss a target (0 unknown shapes, 0 fallbacks, MACs within 3%%; on the bundled "
              "models of tests/data/models, after calibration rho >= 0.9 and total within 20%%)\n",
              failures, rows.size());
  return failures == 0 ? 0 : 1;
}
