// stage_bench: the stage sub-models of every bundled model, the scale fixtures and the dynamic
// fixtures (issue 29): their total size against the original file's (target: at most 1.01x, beside
// the bytes of shared weights that stages replicate, which the report lists), the time to build them
// (the symbolic-dimension analysis included), and, for models with symbolic dimensions, whether the
// stages run in ONNX Runtime at two other values of each dimension (tests/ort/run_stages.mjs, when
// node and onnxruntime-node are there). Placed with SliceGraph for 10 s on the default devices: the
// cut matters here, not its optimality.
//
// A model with external data (by default also the 300 MB fixture, generated with
// tests/data/external/make_external_model.py) is written in both --stage-data modes: the bytes the
// stage directory adds (hard links to the model's data add none), against the model file and its
// data, the time to write it (copying included), and whether the stages run in ONNX Runtime.
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
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "api/model.h"
#include "api/place.h"
#include "core/budget.h"
#include "core/shared_weights.h"

namespace fs = std::filesystem;

namespace {

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

// Bytes of the files under `dir` that are not hard links to one of `shared` (inodes).
double addedBytes(const fs::path& dir, const std::set<ino_t>& shared) {
  double bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    struct stat info {};
    if (!entry.is_regular_file() || ::stat(entry.path().c_str(), &info) != 0) continue;
    if (shared.count(info.st_ino) == 0) bytes += static_cast<double>(info.st_size);
  }
  return bytes;
}

// The model's external data files (beside it, named in its bytes) and their total size.
std::set<ino_t> dataFilesOf(const fs::path& model, double& bytes) {
  std::set<ino_t> inodes;
  const std::string name = model.filename().string();
  for (const auto& entry : fs::directory_iterator(model.parent_path())) {
    const std::string other = entry.path().filename().string();
    if (!entry.is_regular_file() || other == name || entry.path().extension() == ".onnx") continue;
    if (other.rfind(name, 0) != 0) continue;  // "model.onnx.data" and the like
    struct stat info {};
    if (::stat(entry.path().c_str(), &info) == 0) {
      inodes.insert(info.st_ino);
      bytes += static_cast<double>(info.st_size);
    }
  }
  return inodes;
}

// Writes the stages of an external-data model in both --stage-data modes and prints a row for each.
void externalRows(const placer::api::LoadedModel& model, const placer::api::Placed& placed, const fs::path& path,
                  const fs::path& scratch, bool have_ort) {
  using namespace placer;  // NOLINT: a benchmark's main file
  double data_bytes = 0;
  const std::set<ino_t> shared = dataFilesOf(path, data_bytes);
  const double original = static_cast<double>(fs::file_size(path)) + data_bytes;
  for (StageData mode : {StageData::Reference, StageData::Copy}) {
    fs::remove_all(scratch);
    fs::create_directories(scratch);
    api::OutputFiles files;
    files.model = scratch / "annotated.onnx";
    files.stages_dir = scratch / "stages";
    files.stage_data = mode;
    const auto start = std::chrono::steady_clock::now();
    const Status written = api::writeOutputs(model, placed, AnnotateMode::Ort, files, nullptr);
    const double seconds = placer::secondsSince(start);
    const std::string name = path.filename().string() + " (" + toString(mode) + ")";
    if (!written) {
      std::printf("%-30s %s\n", name.c_str(), written.message().c_str());
      continue;
    }
    int stages = 0;
    for (const auto& entry : fs::directory_iterator(*files.stages_dir)) stages += entry.path().extension() == ".onnx";
    const double bytes = addedBytes(*files.stages_dir, shared);
    std::string runs = "no ONNX Runtime";
    if (have_ort) {
      const std::string command = "node " PLACER_BENCH_ORT_DIR "/run_stages.mjs '" + path.string() + "' '" +
                                  files.model->string() + "' '" + files.stages_dir->string() +
                                  "' --dims 'batch=2/batch=5' >/dev/null 2>&1";
      runs = std::system(command.c_str()) == 0 ? "yes: batch=2/batch=5" : "NO";
    }
    std::printf("%-30s %6d %10.3f %10.3f %6.3fx %10s %8.3f | %s\n", name.c_str(), stages, original / 1e6, bytes / 1e6,
                bytes / original, "-", seconds, runs.c_str());
  }
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
  const fs::path scratch = fs::temp_directory_path() / ("stage_bench-" + std::to_string(::getpid()));
  const fs::path fixtures = scratch.string() + "-fixtures";
  if (argc == 1) {
    const std::string make = "/usr/bin/python3 " PLACER_BENCH_EXTERNAL_SCRIPT " '" + fixtures.string() + "' 300";
    if (std::system(make.c_str()) == 0) models.push_back(fixtures / "big_external.onnx");
  }
  const bool have_ort = std::system("node -e \"require.resolve('onnxruntime-node', {paths: ['" PLACER_BENCH_ORT_DIR
                                    "']})\" >/dev/null 2>&1") == 0;
  std::printf("%-30s %6s %10s %10s %7s %10s %8s | %s\n", "model", "stages", "model MB", "stages MB", "ratio",
              "shared MB", "write s", "runs at other dims");
  for (const fs::path& path : models) {
    api::PlaceOptions options;
    if (path.filename() == "big_external.onnx") {
      // Split as tests/ort/external_data_test.sh splits it: the 300 MB weight on a device of its own.
      options.accelerators = 2;
      options.cpus = 0;
      options.memory = 3.2e8;
      options.dims = {{"batch", 2}};
    }
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
    const double write = placer::secondsSince(start);
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
    const bool external = std::any_of(model->graph.tensors.begin(), model->graph.tensors.end(),
                                      [](const TensorInfo& t) { return t.external_data; });
    if (external) externalRows(*model, *placed, path, scratch, have_ort);
  }
  fs::remove_all(scratch);
  fs::remove_all(fixtures);
  return 0;
}
