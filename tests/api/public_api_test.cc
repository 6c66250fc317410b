// The public C++ API and the C ABI against the command-line tool: the same model and options give the
// same placement, report values, annotated model and stage sub-models; every error path returns a
// status with a message and the CLI's code, without crashing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <string>

#include "onnx_placer/onnx_placer.h"
#include "onnx_placer/placer.h"
#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace public_api_test {

using Json = nlohmann::json;

// The report without what differs from run to run: how long the solve took, and the bound over every
// placement, which a time-limited packing program helps prove (a slower run, under the sanitizers,
// proves less); it must still be a bound.
Json stable(Json report) {
  EXPECT_LE(report["anyLowerBound"].get<double>(), report["upperBound"].get<double>());
  report["solver"].erase("solver_seconds");
  report["solver"].erase("total_seconds");
  report.erase("anyLowerBound");
  report.erase("anyBoundMethod");
  return report;
}

std::string bytesOf(const std::string& name) {
  return slurp(model(name));
}

class PublicApi : public CliTest {};

TEST_F(PublicApi, VersionsAreTheConfiguredOnes) {
  EXPECT_STREQ(onnx_placer_version(), ONNX_PLACER_VERSION);
  EXPECT_STREQ(onnx_placer_version(), "0.2.0");
  EXPECT_EQ(onnx_placer_abi_version(), ONNX_PLACER_ABI_VERSION);
  EXPECT_STREQ(onnx_placer::version(), ONNX_PLACER_VERSION);
  EXPECT_EQ(onnx_placer::abiVersion(), ONNX_PLACER_ABI_VERSION);
  const RunResult cli = run({"--version"});
  EXPECT_EQ(cli.out, std::string("onnx-placer ") + ONNX_PLACER_VERSION + "\n");
}

// The C ABI on a model's bytes and `place` on its file, with the same options.
TEST_F(PublicApi, CAbiGivesTheCliPlacementReportAndModels) {
  const std::string name = "bert_base_l3_light.onnx";
  const RunResult cli = run({"place", model(name), "--accelerators", "2", "--algorithm", "dp", "-q", "--report",
                             (work_ / "report.json").string(), "-o", (work_ / "annotated.onnx").string(),
                             "--stages-dir", (work_ / "stages").string()});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const std::string bytes = bytesOf(name);
  onnx_placer_result* result = nullptr;
  onnx_placer_status* status = onnx_placer_place(
      bytes.data(), bytes.size(), R"({"accelerators": 2, "algorithm": "dp", "model_name": "bert_base_l3_light.onnx"})",
      &result);
  ASSERT_EQ(status, nullptr) << onnx_placer_status_message(status);
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(stable(Json::parse(onnx_placer_result_report_json(result))),
            stable(Json::parse(slurp(work_ / "report.json"))));
  const void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(onnx_placer_result_annotated_model(result, &data, &size), nullptr);
  EXPECT_EQ(std::string(static_cast<const char*>(data), size), slurp(work_ / "annotated.onnx"));
  const size_t stages = onnx_placer_result_stage_count(result);
  ASSERT_EQ(stages, 3u);
  for (size_t k = 0; k < stages; ++k) {
    ASSERT_EQ(onnx_placer_result_stage_model(result, k, &data, &size), nullptr);
    EXPECT_EQ(std::string(static_cast<const char*>(data), size),
              slurp(work_ / "stages" / ("stage" + std::to_string(k) + ".onnx")))
        << "stage " << k;
  }
  // The plan is the one written into the annotated model's metadata.
  const Json plan = Json::parse(onnx_placer_result_placement_json(result));
  EXPECT_EQ(plan["layer_assignment_settings"], "gpu:0(=stage0); gpu:1(=stage1); cpu(=cpu0)");
  EXPECT_EQ(plan["nodes"].size(), 164u);
  onnx_placer_result_free(result);
}

TEST_F(PublicApi, CppApiFromBytesAndFromFileAgree) {
  onnx_placer::Options options;
  options.accelerators = 3;
  options.algorithm = "dp";
  const std::string bytes = bytesOf("resnet50_light.onnx");
  auto from_bytes = onnx_placer::place(bytes.data(), bytes.size(), options);
  ASSERT_TRUE(from_bytes) << from_bytes.status().message();
  auto from_file = onnx_placer::placeFile(model("resnet50_light.onnx"), options);
  ASSERT_TRUE(from_file) << from_file.status().message();
  EXPECT_EQ(from_bytes->placementJson(), from_file->placementJson());
  ASSERT_TRUE(from_bytes->annotatedModel());
  EXPECT_EQ(*from_bytes->annotatedModel(), *from_file->annotatedModel());
  const onnx_placer::Certificate certificate = from_bytes->certificate();
  EXPECT_EQ(certificate.status, "optimal");
  EXPECT_EQ(certificate.ratio, 1.0);
  EXPECT_EQ(certificate.bound_method, "dp");
  EXPECT_EQ(certificate.summary, "optimal among contiguous splits" +
                                     certificate.summary.substr(std::string("optimal among contiguous splits").size()));
  const auto placement = from_bytes->placement();
  const Json plan = Json::parse(from_bytes->placementJson());
  ASSERT_EQ(placement.size(), plan["nodes"].size());
  for (const auto& node : placement) {
    EXPECT_EQ(plan["nodes"][node.node]["device"], node.device);
    EXPECT_EQ(plan["nodes"][node.node]["stage"], node.stage);
  }
  EXPECT_FALSE(from_bytes->stageModel(from_bytes->stageCount()));
}

TEST_F(PublicApi, PlaceToFilesWritesWhatTheCliWrites) {
  onnx_placer::OutputFiles files;
  files.model = (work_ / "a.onnx").string();
  files.stages_dir = (work_ / "stages").string();
  files.report = (work_ / "r.json").string();
  files.placement = (work_ / "p.json").string();
  onnx_placer::Options options;
  options.accelerators = 2;
  auto result = onnx_placer::placeToFiles(model("mobilenet_v2_light.onnx"), files, options);
  ASSERT_TRUE(result) << result.status().message();
  EXPECT_EQ(slurp(work_ / "a.onnx"), std::string(*result->annotatedModel()));
  EXPECT_EQ(slurp(work_ / "p.json"), result->placementJson());
  EXPECT_EQ(slurp(work_ / "r.json"), result->reportJson());
  EXPECT_EQ(slurp(work_ / "stages" / "pipeline.json"), std::string(*result->stageManifestJson()));
  EXPECT_EQ(workFiles(), (std::set<std::string>{"a.onnx", "p.json", "r.json", "stages"}));

  // Two outputs on one file are refused before any work, and nothing is written.
  files.model = (work_ / "b.onnx").string();
  files.report = (work_ / "." / "b.onnx").string();
  files.placement.clear();
  files.stages_dir.clear();
  auto clash = onnx_placer::placeToFiles(model("mobilenet_v2_light.onnx"), files, options);
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.status().code(), onnx_placer::Code::BadOptions);
  EXPECT_NE(clash.status().message().find("name the same file"), std::string::npos) << clash.status().message();
  EXPECT_EQ(workFiles(), (std::set<std::string>{"a.onnx", "p.json", "r.json", "stages"}));

  // Nor is the model written over: refused before any work.
  fs::copy_file(model("mobilenet_v2_light.onnx"), work_ / "model.onnx");
  const std::string bytes = slurp(work_ / "model.onnx");
  files.model = (work_ / "model.onnx").string();
  files.report.clear();
  auto over_input = onnx_placer::placeToFiles((work_ / "model.onnx").string(), files, options);
  ASSERT_FALSE(over_input);
  EXPECT_NE(over_input.status().message().find("it is an input file"), std::string::npos)
      << over_input.status().message();
  EXPECT_EQ(slurp(work_ / "model.onnx"), bytes);
  fs::remove(work_ / "model.onnx");
  files.model = (work_ / "b.onnx").string();

  // stage_data takes reference or copy, and is checked before any work.
  files.report.clear();
  files.stage_data = "copy";
  EXPECT_TRUE(onnx_placer::placeToFiles(model("mobilenet_v2_light.onnx"), files, options));
  files.stage_data = "link";
  auto bad = onnx_placer::placeToFiles(model("mobilenet_v2_light.onnx"), files, options);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), onnx_placer::Code::BadOptions);
  EXPECT_NE(bad.status().message().find("stage_data must be \"reference\" or \"copy\""), std::string::npos)
      << bad.status().message();
}

// A failing C call: its code and message, and the result pointer left NULL.
struct Failure {
  int code = 0;
  std::string message;
};

Failure placeFailing(const std::string& bytes, const char* options) {
  onnx_placer_result* result = reinterpret_cast<onnx_placer_result*>(&result);
  onnx_placer_status* status = onnx_placer_place(bytes.data(), bytes.size(), options, &result);
  Failure out;
  EXPECT_NE(status, nullptr);
  EXPECT_EQ(result, nullptr);
  if (status == nullptr) {
    onnx_placer_result_free(result);
    return out;
  }
  out = {onnx_placer_status_code(status), onnx_placer_status_message(status)};
  onnx_placer_status_free(status);
  return out;
}

TEST_F(PublicApi, EveryErrorIsAStatusWithTheCliCode) {
  const std::string bytes = bytesOf("light_squeezenet.onnx");
  onnx_placer_result* result = nullptr;
  onnx_placer_status* status = onnx_placer_place(bytes.data(), bytes.size(), nullptr, nullptr);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(onnx_placer_status_code(status), 2);
  EXPECT_STREQ(onnx_placer_status_message(status), "onnx_placer_place: result is NULL");
  onnx_placer_status_free(status);
  status = onnx_placer_place(nullptr, 10, nullptr, &result);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(onnx_placer_status_code(status), 2);
  EXPECT_EQ(result, nullptr);
  onnx_placer_status_free(status);

  Failure f = placeFailing(bytes.substr(0, bytes.size() / 2), "{}");
  EXPECT_EQ(f.code, 1);
  EXPECT_NE(f.message.find("not a valid ONNX model"), std::string::npos) << f.message;
  f = placeFailing("", "{\"model_name\": \"empty.onnx\"}");
  EXPECT_EQ(f.code, 1);
  EXPECT_NE(f.message.find("empty.onnx"), std::string::npos) << f.message;
  f = placeFailing(bytes, "{\"accelerators\": 2,");
  EXPECT_EQ(f.code, 2);
  EXPECT_EQ(f.message, "options: not valid JSON");
  f = placeFailing(bytes, "[1]");
  EXPECT_EQ(f.code, 2);
  f = placeFailing(bytes, R"({"acelerators": 2})");
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.message.find("unknown key \"acelerators\""), std::string::npos) << f.message;
  f = placeFailing(bytes, R"({"accelerators": "two"})");
  EXPECT_EQ(f.code, 2);
  EXPECT_EQ(f.message, "options: \"accelerators\" must be an integer");
  f = placeFailing(bytes, R"({"pipeline": "subdivide,no-such-pass,partition,expand"})");
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.message.find("unknown pass 'no-such-pass'"), std::string::npos) << f.message;
  f = placeFailing(bytes, R"({"algorithm": "greedy"})");
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.message.find("\"algorithm\" greedy is a latency solver"), std::string::npos) << f.message;
  f = placeFailing(bytes, R"({"objective": "speed"})");
  EXPECT_EQ(f.code, 2);
  f = placeFailing(bytes, R"({"devices": "no-such-preset"})");
  EXPECT_EQ(f.code, 1);
  EXPECT_NE(f.message.find("\"devices\" no-such-preset is neither a file nor a preset"), std::string::npos)
      << f.message;
  f = placeFailing(bytes, R"({"devices": {"accelerators": {"count": 1}}})");
  EXPECT_EQ(f.code, 1);
  f = placeFailing(bytes, R"({"dims": {"batch": 2}})");
  EXPECT_EQ(f.code, 1);
  EXPECT_NE(f.message.find("no input has a symbolic dimension named 'batch'"), std::string::npos) << f.message;
  f = placeFailing(bytes, R"({"cpus": 0, "memory": 1000})");
  EXPECT_EQ(f.code, 3);
  EXPECT_NE(f.message.find("there are no CPUs"), std::string::npos) << f.message;

  // NULL handles are tolerated where the header says so, and refused with a status elsewhere.
  onnx_placer_status_free(nullptr);
  onnx_placer_result_free(nullptr);
  EXPECT_EQ(onnx_placer_status_code(nullptr), 0);
  EXPECT_STREQ(onnx_placer_status_message(nullptr), "");
  EXPECT_EQ(onnx_placer_result_stage_count(nullptr), 0u);
  const void* data = nullptr;
  size_t size = 0;
  status = onnx_placer_result_annotated_model(nullptr, &data, &size);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(onnx_placer_status_code(status), 2);
  onnx_placer_status_free(status);

  ASSERT_EQ(onnx_placer_place(bytes.data(), bytes.size(), "{}", &result), nullptr);
  status = onnx_placer_result_stage_model(result, 99, &data, &size);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(onnx_placer_status_code(status), 2);
  EXPECT_NE(std::string(onnx_placer_status_message(status)).find("stage 99 does not exist"), std::string::npos);
  onnx_placer_status_free(status);
  status = onnx_placer_result_stage_model(result, 0, nullptr, &size);
  ASSERT_NE(status, nullptr);
  onnx_placer_status_free(status);
  onnx_placer_result_free(result);
}

TEST_F(PublicApi, TheCallersStopFlagAndProgressAreHonoured) {
  std::atomic<bool> stop{true};
  onnx_placer::Options options;
  options.stop = &stop;
  auto stopped = onnx_placer::placeFile(model("light_squeezenet.onnx"), options);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.status().code(), onnx_placer::Code::Interrupted);

  // SliceGraph's order search on a large model reports its progress.
  stop = false;
  int events = 0;
  options.algorithm = "slicegraph";
  options.time_limit = 2;
  options.progress = [&](const onnx_placer::Progress& p) {
    ++events;
    EXPECT_FALSE(p.phase.empty());
  };
  auto placed = onnx_placer::placeFile(model("bert_base_l3_light.onnx"), options);
  ASSERT_TRUE(placed) << placed.status().message();
  EXPECT_GT(events, 0);
}

TEST_F(PublicApi, OptionsFromJsonReadEveryKey) {
  auto options = onnx_placer::Options::fromJson(R"({
      "devices": {"name": "x"}, "accelerators": 2, "cpus": 1, "memory": 1e9, "dims": {"seq": 128},
      "shared_weights": "colocate", "cost_profiles": ["a.json", "b.json"], "cost_plugin": "p.so",
      "model_name": "m", "objective": "latency", "algorithm": "ip", "time_limit": 5, "max_ideals": 10,
      "mip_gap": 0.1, "mip_solver": "glpk", "subgraphs_per_accelerator": 3, "orders": "random:10",
      "seed": 7, "threads": 1, "pipeline": "subdivide,partition,expand", "annotate": "metadata"})");
  ASSERT_TRUE(options) << options.status().message();
  EXPECT_EQ(options->devices_json, R"({"name":"x"})");
  EXPECT_EQ(options->accelerators, 2);
  EXPECT_EQ(options->dims.at("seq"), 128);
  EXPECT_EQ(options->cost_profiles, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(options->time_limit, 5.0);
  EXPECT_EQ(options->seed, 7u);
  EXPECT_EQ(options->annotate, "metadata");
  EXPECT_TRUE(onnx_placer::Options::fromJson(""));
  EXPECT_TRUE(onnx_placer::Options::fromJson("{}"));
  EXPECT_FALSE(onnx_placer::Options::fromJson(R"({"seed": -1})"));
  EXPECT_FALSE(onnx_placer::Options::fromJson(R"({"dims": {"seq": "x"}})"));
  // Replicas: a count or "auto".
  EXPECT_EQ(onnx_placer::Options::fromJson(R"({"replicas": 2})")->replicas, "2");
  EXPECT_EQ(onnx_placer::Options::fromJson(R"({"replicas": "auto"})")->replicas, "auto");
  EXPECT_FALSE(onnx_placer::Options::fromJson(R"({"replicas": 1.5})"));
}

}  // namespace public_api_test
}  // namespace placer::testing
