// Stage sub-models on the bundled models with hand-made plans (contiguous chunks of the model's node
// order, and chunks of another topological order, which are not contiguous in node order): every stage passes
// the ONNX checker, and the stages re-joined through the manifest's boundary tensors are exactly the original
// graph — the same operators, each edge once, the same graph inputs and outputs.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/stage_models.h"
#include "tests/onnx_io/onnx_checker.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace stage_models_test {

using Json = nlohmann::ordered_json;

// A plan with one accelerator per stage; loads and memory are made up, only the cut matters here.
PlacementPlan planFrom(std::vector<int> stage_of_node) {
  PlacementPlan plan;
  const int stages =
      stage_of_node.empty() ? 1 : *std::max_element(stage_of_node.begin(), stage_of_node.end()) + 1;
  for (int k = 0; k < stages; ++k) {
    plan.devices.push_back(PlannedDevice{"gpu:" + std::to_string(k), true, k});
    plan.stages.push_back(PlannedStage{k, "stage" + std::to_string(k), 0.25 * (k + 1), 1e6 * (k + 1), 0});
  }
  plan.stage_of_node = std::move(stage_of_node);
  plan.algorithm = "hand";
  plan.status = "feasible";
  plan.value = 0.25 * stages;
  return plan;
}

// Cuts the model's node order (topological, as the loader keeps it) into `k` contiguous chunks.
std::vector<int> contiguousChunks(const OnnxGraph& graph, int k) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<int> stage(n);
  for (int i = 0; i < n; ++i) {
    stage[i] = i * k / n;
  }
  return stage;
}

// Cuts another topological order into `k` chunks: Kahn's algorithm taking the ready node that comes
// last in the model, so parallel branches run in the other order. The cut points shift until the plan
// is not contiguous in the model's node order (possible only where the graph has parallel branches).
std::vector<int> interleavedCut(const OnnxGraph& graph, int k) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<int>> successors(n);
  for (int i = 0; i < n; ++i) {
    std::set<int> producers;
    for (int t : graph.nodes[i].inputs) {
      if (t >= 0 && graph.tensors[t].producer >= 0) producers.insert(graph.tensors[t].producer);
    }
    indegree[i] = static_cast<int>(producers.size());
    for (int p : producers) {
      successors[p].push_back(i);
    }
  }
  std::set<int> ready;
  for (int i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.insert(i);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = *ready.rbegin();
    ready.erase(i);
    order.push_back(i);
    for (int next : successors[i]) {
      if (--indegree[next] == 0) ready.insert(next);
    }
  }
  std::vector<int> stage(n, 0);
  for (int shift = 0; shift < n / k; ++shift) {
    for (int p = 0; p < n; ++p) {
      stage[order[p]] = std::clamp((p + shift) * k / n, 0, k - 1);
    }
    if (!std::is_sorted(stage.begin(), stage.end())) break;
  }
  return stage;
}

bool contiguous(const std::vector<int>& stage_of_node) {
  return std::is_sorted(stage_of_node.begin(), stage_of_node.end());
}

struct LoadedModel {
  std::filesystem::path path;
  OnnxGraph graph;
  onnx::ModelProto proto;
  bool full_check = false;  // the original passes the full check, so its stages must too
};

const LoadedModel& loaded(const std::string& file) {
  static std::map<std::string, LoadedModel> cache;
  auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  LoadedModel model;
  model.path = dataPath("models/" + file);
  auto graph = loadOnnx(model.path);
  EXPECT_TRUE(graph.hasValue()) << graph.status().message();
  if (graph.hasValue()) model.graph = std::move(*graph);
  std::ifstream in(model.path, std::ios::binary);
  EXPECT_TRUE(model.proto.ParseFromIstream(&in)) << file;
  model.full_check = checkerError(model.proto, true).empty();
  return cache.emplace(file, std::move(model)).first->second;
}

// Operators are compared as whole NodeProtos: op type, name, inputs, outputs and attributes.
std::string nodeKey(const onnx::NodeProto& node) {
  return node.SerializeAsString();
}

std::vector<std::string> names(const Json& entries) {
  std::vector<std::string> out;
  for (const Json& entry : entries) {
    out.push_back(entry.at("name").get<std::string>());
  }
  return out;
}

// Checks every stage, then re-joins the stages through the manifest and compares with the original.
// A failed ASSERT inside a step ends that step; check() stops at the first step that had one.
class StageComposition {
 public:
  StageComposition(const LoadedModel& model, const PlacementPlan& plan, const StageSet& set)
      : model_(model), original_(model.proto.graph()), plan_(plan), set_(set) {}

  void check() {
    const int n_stages = static_cast<int>(plan_.stages.size());
    ASSERT_EQ(static_cast<int>(set_.models.size()), n_stages);
    manifest_ = Json::parse(set_.manifest_json);
    ASSERT_EQ(static_cast<int>(manifest_.at("stages").size()), n_stages);
    indexOriginal();
    stages_.resize(n_stages);
    for (int k = 0; k < n_stages; ++k) {
      SCOPED_TRACE("stage " + std::to_string(k));
      checkStage(k);
      if (::testing::Test::HasFatalFailure()) return;
    }
    expectSameOperatorsAndEdges();
    expectSameGraphInputsAndOutputs();
  }

 private:
  // The tensors of the stage being checked.
  struct StageTensors {
    std::map<std::string, int> produced;  // tensor -> the original operator that writes it
    std::set<std::string> read;           // every tensor an operator of the stage reads
  };

  // The original's operators (with their plan stage), constant producers, tensor producers, inputs.
  void indexOriginal() {
    for (std::size_t n = 0; n < model_.graph.nodes.size(); ++n) {
      const int i = model_.graph.nodes[n].onnx_index;
      operators_[nodeKey(original_.node(i))] = {i, plan_.stage_of_node[n]};
    }
    for (const auto& node : original_.node()) {
      if (!operators_.count(nodeKey(node))) constants_.insert(nodeKey(node));
    }
    for (const auto& [key, where] : operators_) {
      for (const auto& out : original_.node(where.first).output()) {
        operator_producer_[out] = where.first;
      }
    }
    for (int t = 0; t < static_cast<int>(model_.graph.tensors.size()); ++t) {
      if (model_.graph.tensors[t].is_graph_input) original_inputs_.insert(model_.graph.tensors[t].name);
    }
  }

  void checkStage(int k) {
    const Json& entry = manifest_.at("stages").at(k);
    EXPECT_EQ(set_.models[k].file_name, "stage" + std::to_string(k) + ".onnx");
    EXPECT_EQ(entry.at("file"), set_.models[k].file_name);
    onnx::ModelProto& stage = stages_[k];
    ASSERT_TRUE(stage.ParseFromString(set_.models[k].bytes));
    EXPECT_EQ(checkerError(stage, model_.full_check), "");
    EXPECT_EQ(stage.ir_version(), model_.proto.ir_version());
    EXPECT_EQ(stage.opset_import_size(), model_.proto.opset_import_size());
    EXPECT_EQ(stage.producer_name(), model_.proto.producer_name());
    const std::set<std::string> initializers = expectDeclaredInterface(stage.graph(), entry);
    StageTensors here;
    placeOperators(stage.graph(), k, here);
    if (::testing::Test::HasFatalFailure()) return;
    // Duplicated weights are only where they are read.
    for (const auto& node : stage.graph().node()) {
      if (!constants_.count(nodeKey(node))) continue;
      bool read = false;
      for (const auto& out : node.output()) {
        read = read || here.read.count(out);
      }
      EXPECT_TRUE(read) << "unread constant producer " << node.output(0);
    }
    for (const auto& name : initializers) {
      EXPECT_TRUE(here.read.count(name)) << "unread initializer " << name;
    }
    rejoinInputs(stage.graph(), entry, k, here);
    if (::testing::Test::HasFatalFailure()) return;
    expectManifestInputs(entry, k);
    if (::testing::Test::HasFatalFailure()) return;
    for (const Json& output : entry.at("outputs")) {
      if (output.at("graph_output").get<bool>()) {
        EXPECT_TRUE(graph_output_stage_.emplace(output.at("name"), k).second) << output.at("name");
      }
    }
  }

  // The stage's declared interface is the manifest's, in order; initializers are inputs below IR 4.
  // Returns the stage's initializers.
  std::set<std::string> expectDeclaredInterface(const onnx::GraphProto& g, const Json& entry) {
    std::set<std::string> initializers;
    for (const auto& init : g.initializer()) {
      initializers.insert(init.name());
    }
    std::vector<std::string> declared_inputs;
    int initializer_inputs = 0;
    for (const auto& input : g.input()) {
      if (initializers.count(input.name())) {
        ++initializer_inputs;
      } else {
        declared_inputs.push_back(input.name());
      }
    }
    EXPECT_EQ(initializer_inputs, model_.proto.ir_version() < 4 ? g.initializer_size() : 0);
    EXPECT_EQ(declared_inputs, names(entry.at("inputs")));
    std::vector<std::string> declared_outputs;
    for (const auto& output : g.output()) {
      declared_outputs.push_back(output.name());
    }
    EXPECT_EQ(declared_outputs, names(entry.at("outputs")));
    return initializers;
  }

  // Every operator of stage k is an original one of plan stage k; records in `here` what the stage
  // reads and which operator writes each of its tensors.
  void placeOperators(const onnx::GraphProto& g, int k, StageTensors& here) {
    for (const auto& node : g.node()) {
      for (const auto& name : node.input()) {
        here.read.insert(name);
      }
      const std::string key = nodeKey(node);
      if (constants_.count(key)) continue;
      ASSERT_TRUE(operators_.count(key))
          << "stage node " << node.op_type() << " '" << node.name() << "' is not an original node";
      placed_.insert(key);
      EXPECT_EQ(operators_[key].second, k) << node.name();
      for (const auto& out : node.output()) {
        here.produced[out] = operators_[key].first;
      }
    }
  }

  // Re-joins every operator input: from this stage, from an earlier stage's output, or a graph input.
  void rejoinInputs(const onnx::GraphProto& g, const Json& entry, int k, const StageTensors& here) {
    std::map<std::string, const Json*> manifest_inputs;
    for (const Json& input : entry.at("inputs")) {
      manifest_inputs[input.at("name")] = &input;
    }
    for (const auto& node : g.node()) {
      auto where = operators_.find(nodeKey(node));
      if (where == operators_.end()) continue;
      for (const auto& name : node.input()) {
        if (name.empty() || !operator_producer_.count(name)) continue;  // a weight or a graph input
        if (auto local = here.produced.find(name); local != here.produced.end()) {
          edges_.emplace(local->second, where->second.first, name);
          continue;
        }
        ASSERT_TRUE(manifest_inputs.count(name)) << name << " is neither produced nor a stage input";
        const Json& from = manifest_inputs[name]->at("from_stage");
        ASSERT_TRUE(from.is_number_integer()) << name;
        const int j = from.get<int>();
        ASSERT_LT(j, k) << name;
        EXPECT_EQ(stages_[j].graph().node_size() > 0, true);
        int producer = -1;
        for (const auto& other : stages_[j].graph().node()) {
          for (const auto& out : other.output()) {
            if (out == name) producer = operators_.at(nodeKey(other)).first;
          }
        }
        EXPECT_EQ(producer, operator_producer_[name]) << name;
        edges_.emplace(producer, where->second.first, name);
      }
    }
  }

  // Each manifest input of stage k is a graph input or an output of an earlier stage.
  void expectManifestInputs(const Json& entry, int k) {
    for (const Json& input : entry.at("inputs")) {
      const std::string name = input.at("name");
      if (input.at("from_stage").is_null()) {
        EXPECT_TRUE(original_inputs_.count(name)) << name;
        inputs_read_.insert(name);
        continue;
      }
      const int j = input.at("from_stage");
      ASSERT_LT(j, k);
      const auto outputs = names(manifest_.at("stages").at(j).at("outputs"));
      EXPECT_TRUE(std::find(outputs.begin(), outputs.end(), name) != outputs.end())
          << name << " is not an output of stage " << j;
    }
  }

  // Operators: exactly the original ones, each once; edges between them: each original one once.
  void expectSameOperatorsAndEdges() {
    std::multiset<std::string> expected;
    for (const auto& [key, where] : operators_) {
      expected.insert(key);
    }
    EXPECT_EQ(placed_, expected);
    std::multiset<std::tuple<int, int, std::string>> original_edges;
    std::size_t repeated = 0;  // reads of a tensor a node has already read
    for (const auto& [key, where] : operators_) {
      std::set<std::string> seen;
      for (const auto& name : original_.node(where.first).input()) {
        if (!operator_producer_.count(name)) continue;
        if (seen.insert(name).second) {
          original_edges.emplace(operator_producer_[name], where.first, name);
        } else {
          ++repeated;
        }
      }
    }
    std::set<std::tuple<int, int, std::string>> distinct(edges_.begin(), edges_.end());
    std::multiset<std::tuple<int, int, std::string>> rejoined(distinct.begin(), distinct.end());
    EXPECT_EQ(rejoined, original_edges);
    // A node reading one tensor twice gives one edge; otherwise every edge is rejoined once per read.
    EXPECT_EQ(edges_.size() - distinct.size(), repeated);
  }

  // Graph inputs and outputs: the original's, each output declared by exactly one stage.
  void expectSameGraphInputsAndOutputs() {
    std::vector<std::string> graph_inputs(original_inputs_.begin(), original_inputs_.end());
    std::vector<std::string> manifest_inputs = manifest_.at("graph_inputs").get<std::vector<std::string>>();
    std::sort(manifest_inputs.begin(), manifest_inputs.end());
    EXPECT_EQ(manifest_inputs, graph_inputs);
    for (const auto& name : graph_inputs) {
      EXPECT_TRUE(inputs_read_.count(name)) << name;
    }
    std::vector<std::string> outputs;
    for (const auto& output : original_.output()) {
      outputs.push_back(output.name());
    }
    EXPECT_EQ(manifest_.at("graph_outputs").get<std::vector<std::string>>(), outputs);
    for (const auto& name : outputs) {
      EXPECT_TRUE(graph_output_stage_.count(name)) << name;
    }
    EXPECT_EQ(graph_output_stage_.size(), outputs.size());
  }

  const LoadedModel& model_;
  const onnx::GraphProto& original_;
  const PlacementPlan& plan_;
  const StageSet& set_;
  Json manifest_;
  std::map<std::string, std::pair<int, int>> operators_;  // key -> (onnx index, plan stage)
  std::set<std::string> constants_;                        // keys of constant producers
  std::map<std::string, int> operator_producer_;  // tensor -> onnx index of the operator writing it
  std::set<std::string> original_inputs_;
  std::vector<onnx::ModelProto> stages_;
  std::multiset<std::string> placed_;
  std::multiset<std::tuple<int, int, std::string>> edges_;
  std::map<std::string, int> graph_output_stage_;
  std::set<std::string> inputs_read_;
};

struct Case {
  const char* file;
  const char* cut;  // "chunks" or "interleaved"
  int stages;
};

// The parameter as the test's name shows it (GoogleTest would print its bytes, a pointer among them).
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.file << " " << c.cut << " " << c.stages;
}

class BundledStages : public ::testing::TestWithParam<Case> {};

TEST_P(BundledStages, EveryStageIsValidAndTheyComposeToTheOriginal) {
  const LoadedModel& model = loaded(GetParam().file);
  ASSERT_FALSE(model.graph.nodes.empty());
  const bool interleaved = std::string(GetParam().cut) == "interleaved";
  const auto stage_of_node = interleaved ? interleavedCut(model.graph, GetParam().stages)
                                         : contiguousChunks(model.graph, GetParam().stages);
  if (interleaved) {
    EXPECT_FALSE(contiguous(stage_of_node)) << "the cut should interleave in node order";
  }
  const PlacementPlan plan = planFrom(stage_of_node);
  auto set = buildStageModels(model.path, model.graph, plan);
  ASSERT_TRUE(set.hasValue()) << set.status().message();
  StageComposition(model, plan, *set).check();
}

INSTANTIATE_TEST_SUITE_P(
    Bundled, BundledStages,
    ::testing::Values(
        Case{"resnet50_light.onnx", "chunks", 1}, Case{"resnet50_light.onnx", "chunks", 2},
        Case{"resnet50_light.onnx", "chunks", 3}, Case{"resnet50_light.onnx", "interleaved", 3},
        Case{"light_squeezenet.onnx", "chunks", 1}, Case{"light_squeezenet.onnx", "chunks", 2},
        Case{"light_squeezenet.onnx", "chunks", 3}, Case{"light_squeezenet.onnx", "interleaved", 3},
        Case{"bert_base_l3_light.onnx", "chunks", 1}, Case{"bert_base_l3_light.onnx", "chunks", 2},
        Case{"bert_base_l3_light.onnx", "chunks", 3}, Case{"bert_base_l3_light.onnx", "interleaved", 3},
        Case{"mobilenet_v2_light.onnx", "chunks", 1}, Case{"mobilenet_v2_light.onnx", "chunks", 2},
        Case{"mobilenet_v2_light.onnx", "chunks", 3}),
    [](const auto& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.')) + "_" + info.param.cut + std::to_string(info.param.stages);
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(StageModels, FullCheckAppliesToTheOpset13Models) {
  // Guards the test above against silently falling back to the basic check everywhere.
  EXPECT_TRUE(loaded("resnet50_light.onnx").full_check);
  EXPECT_TRUE(loaded("mobilenet_v2_light.onnx").full_check);
}

TEST(StageModels, ReadingFromALaterStageIsAnErrorNamingTheTensor) {
  const LoadedModel& model = loaded("resnet50_light.onnx");
  auto stage_of_node = contiguousChunks(model.graph, 2);
  // Move the producer of a tensor read in the first half to the second stage.
  int moved = -1;
  std::string tensor;
  for (int n = 0; n < static_cast<int>(model.graph.nodes.size()) && moved < 0; ++n) {
    if (stage_of_node[n] != 0) continue;
    for (int t : model.graph.nodes[n].outputs) {
      const auto& consumers = model.graph.tensors[t].consumers;
      if (!consumers.empty() && stage_of_node[consumers.front()] == 0) {
        moved = n;
        tensor = model.graph.tensors[t].name;
        break;
      }
    }
  }
  ASSERT_GE(moved, 0);
  stage_of_node[moved] = 1;
  auto set = buildStageModels(model.path, model.graph, planFrom(stage_of_node));
  ASSERT_FALSE(set.hasValue());
  EXPECT_EQ(set.status().code(), StatusCode::InvalidInput);
  EXPECT_NE(set.status().message().find("'" + tensor + "'"), std::string::npos) << set.status().message();
  EXPECT_NE(set.status().message().find("later stage 1"), std::string::npos) << set.status().message();
}

TEST(StageModels, PlanThatDoesNotFitTheGraphIsRejected) {
  const LoadedModel& model = loaded("resnet50_light.onnx");
  auto short_plan = planFrom(std::vector<int>(model.graph.nodes.size() - 1, 0));
  auto set = buildStageModels(model.path, model.graph, short_plan);
  ASSERT_FALSE(set.hasValue());
  EXPECT_EQ(set.status().code(), StatusCode::InvalidInput);
  auto bad_stage = planFrom(std::vector<int>(model.graph.nodes.size(), 0));
  bad_stage.stage_of_node.back() = 5;
  set = buildStageModels(model.path, model.graph, bad_stage);
  ASSERT_FALSE(set.hasValue());
  EXPECT_NE(set.status().message().find("stage 5"), std::string::npos) << set.status().message();
}

TEST(StageModels, ManifestDescribesThePlanAndIsDeterministic) {
  const LoadedModel& model = loaded("bert_base_l3_light.onnx");
  PlacementPlan plan = planFrom(contiguousChunks(model.graph, 2));
  plan.devices[1] = PlannedDevice{"cpu", false, 0};
  plan.stages[1].label = "cpu0";
  auto set = buildStageModels(model.path, model.graph, plan);
  ASSERT_TRUE(set.hasValue()) << set.status().message();
  const Json manifest = Json::parse(set->manifest_json);
  EXPECT_EQ(manifest.at("version"), 1);
  EXPECT_EQ(manifest.at("model"), "bert_base_l3_light.onnx");
  EXPECT_EQ(manifest.at("objective"), "throughput");
  EXPECT_DOUBLE_EQ(manifest.at("max_load_seconds").get<double>(), plan.value);
  EXPECT_EQ(manifest.at("layer_assignment_settings"), "gpu:0(=stage0); cpu(=cpu0)");
  EXPECT_FALSE(manifest.contains("external_data_dir"));
  const Json& second = manifest.at("stages").at(1);
  EXPECT_EQ(second.at("index"), 1);
  EXPECT_EQ(second.at("label"), "cpu0");
  EXPECT_EQ(second.at("device"), "cpu");
  EXPECT_DOUBLE_EQ(second.at("estimated_seconds").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(second.at("memory_bytes").get<double>(), 2e6);
  // Boundary tensors carry static shapes and sizes; both graph outputs come from the last stage.
  for (const Json& input : second.at("inputs")) {
    if (input.at("from_stage").is_null()) continue;
    EXPECT_EQ(input.at("from_stage"), 0);
    ASSERT_TRUE(input.at("shape").is_array()) << input.at("name");
    EXPECT_GT(input.at("bytes").get<double>(), 0);
  }
  int graph_outputs = 0;
  for (const Json& output : second.at("outputs")) {
    graph_outputs += output.at("graph_output").get<bool>();
  }
  EXPECT_EQ(graph_outputs, 2);

  auto again = buildStageModels(model.path, model.graph, plan);
  ASSERT_TRUE(again.hasValue());
  EXPECT_EQ(again->manifest_json, set->manifest_json);
  for (std::size_t k = 0; k < set->models.size(); ++k) {
    EXPECT_EQ(again->models[k].bytes, set->models[k].bytes);
  }
}

// A scratch directory of this test's own, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("stage-models-test-" + std::to_string(::getpid()) + "-" + info->name());
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

  std::filesystem::path write(const onnx::ModelProto& model, const std::string& name) const {
    auto file = path_ / name;
    std::ofstream out(file, std::ios::binary);
    EXPECT_TRUE(model.SerializeToOstream(&out));
    return file;
  }

 private:
  std::filesystem::path path_;
};

onnx::ModelProto parseText(const char* text) {
  onnx::ModelProto model;
  auto status = onnx::OnnxParser::Parse(model, text);
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  return model;
}

const onnx::NodeProto* findNode(const onnx::GraphProto& g, const std::string& op_type) {
  for (const auto& node : g.node()) {
    if (node.op_type() == op_type) return &node;
  }
  return nullptr;
}

// A weight read through an Identity of an initializer (torch's shared parameters) goes with its
// reader: the Identity and the initializer are in the reader's stage, ahead of it.
TEST(StageModels, IdentityWeightsGoWithTheirReaders) {
  ScratchDir dir;
  onnx::ModelProto model = parseText(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 4] x) => (float[2, 4] y) {
      w1 = Identity(shared)
      w2 = Identity(shared)
      h = MatMul(x, w1)
      y = MatMul(h, w2)
    })");
  onnx::TensorProto* shared = model.mutable_graph()->add_initializer();
  shared->set_name("shared");
  shared->set_data_type(onnx::TensorProto::FLOAT);
  shared->add_dims(4);
  shared->add_dims(4);
  for (int i = 0; i < 16; ++i)
    shared->add_float_data(i % 5 == 0 ? 1.0f : 0.0f);
  const auto path = dir.write(model, "identity.onnx");
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 2u);
  auto set = buildStageModels(path, *graph, planFrom({0, 1}));
  ASSERT_TRUE(set.hasValue()) << set.status().message();
  ASSERT_EQ(set->models.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    onnx::ModelProto stage;
    ASSERT_TRUE(stage.ParseFromString(set->models[k].bytes));
    EXPECT_EQ(checkerError(stage, true), "") << "stage " << k;
    const onnx::GraphProto& g = stage.graph();
    ASSERT_EQ(g.node_size(), 2) << "stage " << k;
    EXPECT_EQ(g.node(0).op_type(), "Identity");
    EXPECT_EQ(g.node(0).output(0), k == 0 ? "w1" : "w2");
    EXPECT_EQ(g.node(1).op_type(), "MatMul");
    ASSERT_EQ(g.initializer_size(), 1) << "stage " << k;
    EXPECT_EQ(g.initializer(0).name(), "shared");
  }
}

TEST(StageModels, SharedConstantsAreDuplicatedAndNodeNamesKept) {
  ScratchDir dir;
  onnx::ModelProto model = parseText(R"(
    <ir_version: 8, opset_import: ["" : 13], producer_name: "stage-test">
    g (float[2, 4] x) => (float[2, 4] y) {
      shape = Constant <value = int64[2] {4, 4}> ()
      w = ConstantOfShape <value = float[1] {0.5}> (shape)
      h = MatMul(x, w)
      y = MatMul(h, w)
    })");
  model.mutable_graph()->mutable_node(3)->set_name("second_matmul");
  auto* meta = model.add_metadata_props();
  meta->set_key("author");
  meta->set_value("tests");
  const auto path = dir.write(model, "shared.onnx");
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 2u);
  auto set = buildStageModels(path, *graph, planFrom({0, 1}));
  ASSERT_TRUE(set.hasValue()) << set.status().message();
  ASSERT_EQ(set->models.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    onnx::ModelProto stage;
    ASSERT_TRUE(stage.ParseFromString(set->models[k].bytes));
    EXPECT_EQ(checkerError(stage, true), "") << "stage " << k;
    EXPECT_EQ(stage.producer_name(), "stage-test");
    ASSERT_EQ(stage.metadata_props_size(), 1);
    EXPECT_EQ(stage.metadata_props(0).key(), "author");
    const onnx::GraphProto& g = stage.graph();
    // The weight and the constant its shape comes from are in both stages, ahead of the MatMul.
    ASSERT_EQ(g.node_size(), 3) << "stage " << k;
    EXPECT_EQ(g.node(0).op_type(), "Constant");
    EXPECT_EQ(g.node(1).op_type(), "ConstantOfShape");
    EXPECT_EQ(g.node(2).op_type(), "MatMul");
    EXPECT_EQ(g.node(2).name(), k == 0 ? "" : "second_matmul");  // unnamed stays unnamed
  }
  const Json manifest = Json::parse(set->manifest_json);
  const Json& h_out = manifest.at("stages").at(0).at("outputs").at(0);
  EXPECT_EQ(h_out.at("name"), "h");
  EXPECT_EQ(h_out.at("shape"), Json::array({2, 4}));
  EXPECT_EQ(h_out.at("element_type"), 1);
  EXPECT_EQ(h_out.at("bytes"), 32);
  EXPECT_FALSE(h_out.at("graph_output").get<bool>());
  const Json& inputs = manifest.at("stages").at(1).at("inputs");
  ASSERT_EQ(inputs.size(), 1u);  // x is not read by the second stage
  EXPECT_EQ(inputs[0].at("name"), "h");
  EXPECT_EQ(inputs[0].at("from_stage"), 0);
  EXPECT_EQ(manifest.at("stages").at(1).at("outputs").at(0).at("name"), "y");
  EXPECT_TRUE(manifest.at("stages").at(1).at("outputs").at(0).at("graph_output").get<bool>());
}

TEST(StageModels, ExternalDataIsReferencedNotRead) {
  ScratchDir dir;
  onnx::ModelProto model = parseText(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 4] x) => (float[2, 4] y) {
      h = Relu(x)
      y = MatMul(h, w)
    })");
  auto* w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value("weights.bin");  // never created: the bytes must not be needed
  const auto path = dir.write(model, "external.onnx");
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  auto set = buildStageModels(path, *graph, planFrom({0, 1}));
  ASSERT_TRUE(set.hasValue()) << set.status().message();
  onnx::ModelProto second;
  ASSERT_TRUE(second.ParseFromString(set->models[1].bytes));
  ASSERT_EQ(second.graph().initializer_size(), 1);
  const auto& copied = second.graph().initializer(0);
  EXPECT_EQ(copied.data_location(), onnx::TensorProto::EXTERNAL);
  ASSERT_EQ(copied.external_data_size(), 1);
  EXPECT_EQ(copied.external_data(0).value(), "weights.bin");
  EXPECT_EQ(findNode(second.graph(), "Relu"), nullptr);
  const Json manifest = Json::parse(set->manifest_json);
  ASSERT_TRUE(manifest.contains("external_data_dir"));
  EXPECT_EQ(std::filesystem::path(manifest.at("external_data_dir").get<std::string>()),
            std::filesystem::absolute(dir.path()).lexically_normal());
}

// Stages written as files reach the model's data from their own directory: links to its data file
// ("reference") or data files of their own holding only their weights ("copy"), which the manifest
// lists per stage. A missing data file, or one too short for a tensor, is refused naming both.
TEST(StageModels, ExternalDataForFilesIsLinkedOrCopied) {
  ScratchDir dir;
  onnx::ModelProto model = parseText(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 4] x) => (float[2, 4] y) {
      a = MatMul(x, w1)
      h = Relu(a)
      y = MatMul(h, w2)
    })");
  // w1 is 64 bytes at offset 0, w2 64 bytes at offset 64 (no "length": from its type and dims).
  for (const auto& [name, offset] : {std::pair{"w1", "0"}, std::pair{"w2", "64"}}) {
    auto* w = model.mutable_graph()->add_initializer();
    w->set_name(name);
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(4);
    w->add_dims(4);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] :
         {std::pair{"location", "data/weights.bin"}, std::pair{"offset", offset}}) {
      auto* entry = w->add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    }
  }
  const auto path = dir.write(model, "external.onnx");
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  const PlacementPlan plan = planFrom({0, 1, 1});
  const StageDataLayout reference{StageData::Reference, false};
  auto missing = buildStageModels(path, *graph, plan, reference);
  ASSERT_FALSE(missing.hasValue());
  EXPECT_NE(missing.status().message().find("tensor 'w1'"), std::string::npos) << missing.status().message();
  EXPECT_NE(missing.status().message().find("weights.bin"), std::string::npos) << missing.status().message();

  std::filesystem::create_directories(dir.path() / "data");
  const auto data_path = dir.path() / "data" / "weights.bin";
  std::string bytes(100, 'a');  // too short for w2
  std::ofstream(data_path, std::ios::binary) << bytes;
  auto short_file = buildStageModels(path, *graph, plan, reference);
  ASSERT_FALSE(short_file.hasValue());
  EXPECT_NE(short_file.status().message().find("tensor 'w2' reads bytes 64 to 128"), std::string::npos)
      << short_file.status().message();

  bytes.resize(128);
  for (int i = 0; i < 128; ++i)
    bytes[i] = static_cast<char>(i);
  std::ofstream(data_path, std::ios::binary | std::ios::trunc) << bytes;
  auto linked = buildStageModels(path, *graph, plan, reference);
  ASSERT_TRUE(linked.hasValue()) << linked.status().message();
  const Json manifest = Json::parse(linked->manifest_json);
  EXPECT_FALSE(manifest.contains("external_data_dir"));
  EXPECT_EQ(manifest.at("stage_data"), "reference");
  for (int k = 0; k < 2; ++k) {
    const StageModel& stage = linked->models[k];
    ASSERT_EQ(stage.data.size(), 1u);
    EXPECT_EQ(stage.data[0].name, "data/weights.bin");
    EXPECT_EQ(stage.data[0].link_to, data_path);
    EXPECT_EQ(manifest.at("stages").at(k).at("data_files"), Json::array({"data/weights.bin"}));
  }

  auto copied = buildStageModels(path, *graph, plan, StageDataLayout{StageData::Copy, false});
  ASSERT_TRUE(copied.hasValue()) << copied.status().message();
  EXPECT_EQ(Json::parse(copied->manifest_json).at("stage_data"), "copy");
  for (int k = 0; k < 2; ++k) {
    const StageModel& stage = copied->models[k];
    ASSERT_EQ(stage.data.size(), 1u);
    const DataFile& file = stage.data[0];
    EXPECT_EQ(file.name, "stage" + std::to_string(k) + ".onnx.data");
    EXPECT_TRUE(file.link_to.empty());
    ASSERT_EQ(file.pieces.size(), 1u);  // only this stage's weight
    EXPECT_EQ(file.pieces[0].offset, k == 0 ? 0u : 64u);
    EXPECT_EQ(file.pieces[0].length, 64u);
    EXPECT_EQ(file.pieces[0].at, 0u);
    EXPECT_EQ(file.size, 64u);
    onnx::ModelProto parsed;
    ASSERT_TRUE(parsed.ParseFromString(stage.bytes));
    ASSERT_EQ(parsed.graph().initializer_size(), 1);
    std::map<std::string, std::string> entries;
    for (const auto& entry : parsed.graph().initializer(0).external_data())
      entries[entry.key()] = entry.value();
    EXPECT_EQ(entries, (std::map<std::string, std::string>{
                           {"location", file.name}, {"offset", "0"}, {"length", "64"}}));
  }
}

}  // namespace stage_models_test
}  // namespace placer::testing
