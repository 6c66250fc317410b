// stage_bench: the stage sub-models of every bundled model, the scale fixtures and the dynamic
// fixtures (issue 29): their total size against the original file's (target: at most 1.01x, beside
// the bytes of shared weights that stages replicate, which the report lists), the time to build them
// (the symbolic-dimension analysis included), and, for models with symbolic dimensions, whether the
// stages run in ONNX Runtime at two other values of each dimension (tests/ort/run_stages.mjs, when
// node and onnxruntime-node are there). Placed with SliceGraph for 10 s on the default devices: the
// cut matters here, not its optimality.
//
// Usage: stage_bench [MODEL.onnx ...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/model.h"
#include "api/place.h"
#include "core/shared_weights.h"

namespace fs = std::filesystem;

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The dimension sets the stages were checked at (pipeline.json's "dims_varied": two other values
// of each dimension, tied ones moved together), as run_stages.mjs takes them: "b=4,s=8/b=2,s=16".
std::string otherDims(const std::string& manifest_json) {
  std::string out;
  const nlohmann::json manifest = nlohmann::json::parse(manifest_json);
  for (const auto& set : manifest.at("dims_varied")) {
    std::string text = set.get<std::string>();
    std::erase(text, ' ');
    out += (out.empty() ? "" : "/") + text;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace placer;  // NOLINT: a benchmark's main file
  std::vector<fs::path> models;
  for (int i = 1; i < argc; ++i) models.emplace_back(argv[i]);
  if (models.empty()) {
    for (const char* dir : {PLACER_BENCH_MODEL_DIR, PLACER_BENCH_SCALE_DIR, PLACER_BENCH_DYNAMIC_DIR}) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".onnx") found.push_back(entry.path());
      }
      std::sort(found.begin(), found.end());
      models.insert(models.end(), found.begin(), found.end());
    }
  }
  const bool have_ort = std::system("node -e \"require.resolve('onnxruntime-node', {paths: ['" PLACER_BENCH_ORT_DIR
                                    "']})\" >/dev/null 2>&1") == 0;
  const fs::path scratch = fs::temp_directory_path() / ("stage_bench-" + std::to_string(::getpid()));
  std::printf("%-30s %6s %10s %10s %7s %10s %8s | %s\n", "model", "stages", "model MB", "stages MB", "ratio",
              "shared MB", "write s", "runs at other dims");
  for (const fs::path& path : models) {
    api::PlaceOptions options;
    options.algorithm = "slicegraph";
    options.algorithm_given = true;
    options.time_limit = 10;
    if (Status s = api::validate(options, api::OptionNaming::Key); !s) return 1;
    auto model = api::loadModel(path, options, api::OptionNaming::Key);
    if (!model) {
      std::printf("%-30s %s\n", path.filename().c_str(), model.status().message().c_str());
      continue;
    }
    auto placed = api::solveModel(*model, options, {});
    if (!placed) {
      std::printf("%-30s %s\n", path.filename().c_str(), placed.status().message().c_str());
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    auto stages = api::stageModels(*model, *placed);
    const double write = since(start);
    if (!stages) {
      std::printf("%-30s %s\n", path.filename().c_str(), stages.status().message().c_str());
      continue;
    }
    double bytes = 0;
    for (const StageModel& stage : stages->models) bytes += static_cast<double>(stage.bytes.size());
    double shared = 0;
    for (const ReplicatedWeight& w : replicatedWeights(placed->problem, placed->solve.placement.device_of)) shared += w.added_bytes;
    const double original = static_cast<double>(fs::file_size(path));
    std::string runs = "static shapes";
    if (!model->graph.input_dims.empty()) {
      runs = "no ONNX Runtime";
      if (have_ort) {
        fs::remove_all(scratch);
        api::OutputFiles files;
        files.model = scratch / "annotated.onnx";
        files.stages_dir = scratch / "stages";
        fs::create_directories(scratch);
        if (Status s = api::writeOutputs(*model, *placed, AnnotateMode::Ort, files, nullptr); !s) {
          runs = "write failed: " + s.message();
        } else {
          const std::string dims = otherDims(stages->manifest_json);
          const std::string command = "node " PLACER_BENCH_ORT_DIR "/run_stages.mjs '" + path.string() + "' '" +
                                      files.model->string() + "' '" + files.stages_dir->string() + "' --dims '" +
                                      dims + "' >/dev/null 2>&1";
          runs = (std::system(command.c_str()) == 0 ? "yes: " : "NO: ") + dims;
        }
      }
    }
    std::printf("%-30s %6zu %10.3f %10.3f %6.3fx %10.3f %8.3f | %s\n", path.filename().c_str(), stages->models.size(),
                original / 1e6, bytes / 1e6, bytes / original, shared / 1e6, write, runs.c_str());
  }
  fs::remove_all(scratch);
  return 0;
}
