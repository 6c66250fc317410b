// onnx-placer's public C++ API: place an ONNX model's operators on a machine's devices and get the
// placement back as an annotated model, one runnable sub-model per pipeline stage, a report and a
// certificate of how close to optimal it is.
//
//   onnx_placer::Options options;
//   options.accelerators = 2;
//   auto result = onnx_placer::place(bytes.data(), bytes.size(), options);
//   if (!result) { std::cerr << result.status().message() << "\n"; return result.status().code(); }
//   for (std::size_t i = 0; i < result->stageCount(); ++i) write(*result->stageModel(i));
//
// Models are serialized ONNX ModelProtos (the bytes of an .onnx file). Nothing here prints, exits or
// throws for an expected failure; every failure is a Status with the message the command-line tool
// prints for it. Results are independent of each other; one Result may be read from several threads.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_placer/options.h"
#include "onnx_placer/status.h"
#include "onnx_placer/version.h"

namespace onnx_placer {

ONNX_PLACER_EXPORT const char* version();   // ONNX_PLACER_VERSION
ONNX_PLACER_EXPORT unsigned abiVersion();   // ONNX_PLACER_ABI_VERSION

// Where an operator runs: its node name (a generated one for an unnamed node, as the annotated model
// names it), the device ("gpu:0", ..., "cpu") and its pipeline stage.
struct NodePlacement {
  std::string node;
  std::string device;
  int stage = 0;
};

// How close to optimal the placement is proven to be.
struct Certificate {
  std::string status;  // "optimal", "feasible", "time-limit"
  double value = 0;        // the placement's objective (seconds per sample, or latency)
  double lower_bound = 0;  // proven for the optimum over `bound_space`
  double ratio = 0;        // value / lower_bound: 1 when proven optimal, +inf when nothing is proven
  std::string bound_method;  // what proved the bound: "dp", "ip", "simple", ...
  std::string bound_space;   // "contiguous" or "any"
  std::string summary;       // one line: "optimal among contiguous splits", "certified within 4.1%"
};

class ONNX_PLACER_EXPORT Result {
 public:
  Result(Result&&) noexcept;
  Result& operator=(Result&&) noexcept;
  ~Result();

  // The report `place --report` writes (JSON text).
  const std::string& reportJson() const;
  // The plan written into the annotated model's metadata: node → device and stage (JSON text).
  const std::string& placementJson() const;
  std::vector<NodePlacement> placement() const;
  Certificate certificate() const;

  // The annotated model (serialized), in the form Options::annotate chose. Built on first use; the
  // bytes stay valid as long as the Result.
  Expected<std::string_view> annotatedModel() const;
  // The pipeline's stage sub-models, in order, and the manifest (`pipeline.json`). Built on first
  // use; valid as long as the Result.
  std::size_t stageCount() const;
  Expected<std::string_view> stageModel(std::size_t index) const;
  Expected<std::string_view> stageManifestJson() const;

  struct Impl;

 private:
  friend struct ResultAccess;
  explicit Result(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Places the model given as the bytes of an .onnx file. The bytes are read where they are, never
// copied, and only during the call: the annotated model and the stages are built before it returns,
// so the caller may free them when it does.
ONNX_PLACER_EXPORT Expected<Result> place(const void* model, std::size_t size, const Options& options = {});
// Places the model file at `path` (read whole: up to protobuf's 2 GB).
ONNX_PLACER_EXPORT Expected<Result> placeFile(const std::string& path, const Options& options = {});

// Where placeToFiles() writes; an empty path is not written.
struct OutputFiles {
  std::string model;       // the annotated model
  std::string stages_dir;  // stage<k>.onnx and pipeline.json; replaced whole
  std::string report;      // the report JSON
  std::string placement;   // the plan JSON
  bool force = false;      // replace a stages_dir that holds other files
  // For a model with external data: "reference" (default) hard-links the model's data files beside
  // each written model; "copy" gives the annotated model and each stage a data file of its own.
  std::string stage_data = "reference";
};

// Places the model file at `path` and writes the outputs all or none, as `place` does: models over
// 2 GB or with external data, whose data files are never written (`stage_data` says how the outputs
// reach them). Never writes over the input; nothing is left behind on failure or interruption.
ONNX_PLACER_EXPORT Expected<Result> placeToFiles(const std::string& path, const OutputFiles& files,
                                                 const Options& options = {});

}  // namespace onnx_placer
