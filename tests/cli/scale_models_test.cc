// The large fixtures of tests/data/scale, placed as a user would: `place` with its default options
// must answer on every one of them, name the solver that answered and why, and write stage
// sub-models the ONNX checker accepts. A Llama-2-7B decoder (fp16 weights, 13.5 GB) spreads over
// the default four 16 GB accelerators with the exact DP; the nn.Transformer encoder-decoder has far
// more ideals than the DP may take and is answered by SliceGraph's orders or clustering + DP,
// refined. (tests/ort/ort_test.sh --defaults
// runs the stages of Swin-T, the encoder-decoder and the Llama twin in ONNX Runtime.)
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace scale_models_test {

std::string scaleModel(const std::string& file) {
  return dataPath("scale/" + file).string();
}

// Every stage file listed by pipeline.json parses and passes libonnx 1.12's checker; returns the
// manifest.
nlohmann::json checkStages(const fs::path& dir) {
  const nlohmann::json manifest = nlohmann::json::parse(slurp(dir / "pipeline.json"));
  for (const auto& stage : manifest["stages"]) {
    const fs::path file = dir / stage["file"].get<std::string>();
    onnx::ModelProto model;
    EXPECT_TRUE(model.ParseFromString(slurp(file))) << file;
    if (model.ir_version() > 8) model.set_ir_version(8);  // the newest IR libonnx 1.12 checks
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      ADD_FAILURE() << file << ": " << e.what();
    }
  }
  return manifest;
}

TEST_F(CliTest, ALlama7BDecoderSpreadsOverTheDefaultDevicesWithTheExactDp) {
  const fs::path report = work_ / "report.json", stages = work_ / "stages";
  // The exact DP takes 8-10 s on 2 cores here, more than auto's default 8 s (with which auto answers
  // with DPL's split, the same optimum unproven: bench/README.md); 30 s let it finish.
  RunResult r =
      run({"place", scaleModel("llama7b_light.onnx"), "--time-limit", "30", "--report", report.string(),
           "--stages-dir", stages.string(), "-o", (work_ / "placed.onnx").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(j["solver"]["algorithm"], "auto");
  EXPECT_EQ(j["solver"]["chosen"], "dp");
  EXPECT_EQ(j["solver"]["status"], "optimal");
  EXPECT_NE(r.err.find("auto -> dp"), std::string::npos) << r.err;
  // 13.5 GB of fp16 weights cannot fit one 16 GB accelerator with its activations and KV tensors
  // being small: the weights spread, each stage within its device's memory.
  double weights = 0;
  int accelerators = 0;
  for (const auto& stage : j["stages"]) {
    const double memory = stage["memory_bytes"].get<double>();
    EXPECT_LE(memory, 16e9) << stage["label"];
    weights += memory;
    accelerators += memory > 1e9;
  }
  EXPECT_GE(weights, 13.47e9);
  EXPECT_GE(accelerators, 3) << "the weights should spread over the accelerators";
  const nlohmann::json manifest = checkStages(stages);
  EXPECT_EQ(manifest["stages"].size(), j["stages"].size());
}

TEST_F(CliTest, AnEncoderDecoderBeyondTheDpIsAnsweredWithoutIt) {
  // The encoder's output feeds all six decoder layers' cross-attention, so the encoder and the
  // decoder's self-attention can run side by side: more than 4,000,000 ideals. A short budget here;
  // the default one is what OrtScaleModels runs.
  const fs::path report = work_ / "report.json", stages = work_ / "stages";
  RunResult r = run({"place", scaleModel("transformer_encdec_light.onnx"), "--time-limit", "15", "--report",
                     report.string(), "--stages-dir", stages.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(j["solver"]["algorithm"], "auto");
  // SliceGraph's orders and clustering + DP both run (issue 31); the better split answers.
  const std::string chosen = j["solver"]["chosen"];
  EXPECT_TRUE(chosen == "slicegraph" || chosen == "cluster-dp") << chosen;
  EXPECT_EQ(j["solver"]["status"], "feasible");
  const std::string how = j["solver"]["how"];
  // The DP gives up at its ideal limit, or (on a machine loaded enough that its time share ends
  // first) at its time: either way without an answer of its own.
  EXPECT_TRUE(how.find("more than 4000000 ideals") != std::string::npos ||
              how.find("the exact DP did not finish") != std::string::npos)
      << how;
  EXPECT_NE(how.find("slicegraph, "), std::string::npos) << how;
  EXPECT_NE(how.find(" orders"), std::string::npos) << how;
  EXPECT_GT(j["solver"]["orders"].get<int>(), 0);
  EXPECT_NE(r.err.find("auto -> " + chosen), std::string::npos) << r.err;
  EXPECT_EQ(checkStages(stages)["stages"].size(), j["stages"].size());
}

}  // namespace scale_models_test
}  // namespace placer::testing
