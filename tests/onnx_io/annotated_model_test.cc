// The annotated-model writer: every mode's output parses and passes ONNX 1.12's checker, leaves the
// input alone, carries a plan JSON that names every operator once, and — read back with a
// wire-format reader written here, independent of the writer's UnknownFieldSet route — has the IR 10
// NodeProto.metadata_props, the IR 11 device configurations and the right IR version.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_io/annotated_model.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace annotated_model_test {

// ---- A protobuf wire-format reader, just enough for ONNX messages -------------------------------

struct WireField {
  int number = 0;
  int wire_type = 0;        // 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32
  std::uint64_t value = 0;  // varint or fixed
  std::string bytes;        // length-delimited payload
};

std::optional<std::uint64_t> readVarint(std::string_view data, std::size_t& pos) {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64 && pos < data.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(data[pos++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return std::nullopt;
}

// The fields of one message in order, or nullopt when the bytes are not a well-formed message.
std::optional<std::vector<WireField>> decodeMessage(std::string_view data) {
  std::vector<WireField> fields;
  std::size_t pos = 0;
  while (pos < data.size()) {
    auto tag = readVarint(data, pos);
    if (!tag || (*tag >> 3) == 0) return std::nullopt;
    WireField field;
    field.number = static_cast<int>(*tag >> 3);
    field.wire_type = static_cast<int>(*tag & 7);
    switch (field.wire_type) {
      case 0: {
        auto v = readVarint(data, pos);
        if (!v) return std::nullopt;
        field.value = *v;
        break;
      }
      case 1:
      case 5: {
        const std::size_t size = field.wire_type == 1 ? 8 : 4;
        if (pos + size > data.size()) return std::nullopt;
        for (std::size_t i = 0; i < size; ++i) {
          field.value |= static_cast<std::uint64_t>(static_cast<unsigned char>(data[pos + i])) << (8 * i);
        }
        pos += size;
        break;
      }
      case 2: {
        auto length = readVarint(data, pos);
        if (!length || *length > data.size() - pos) return std::nullopt;
        field.bytes = std::string(data.substr(pos, *length));
        pos += *length;
        break;
      }
      default:
        return std::nullopt;  // groups do not occur in ONNX
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

std::vector<WireField> fieldsNumbered(const std::vector<WireField>& fields, int number) {
  std::vector<WireField> out;
  for (const WireField& f : fields) {
    if (f.number == number) out.push_back(f);
  }
  return out;
}

// ---- Helpers ------------------------------------------------------------------------------------

std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A directory of this test's own, so concurrent runs do not share files.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("annotated-model-test-") + std::to_string(::getpid()) + "-" +
                       info->test_suite_name() + "-" + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The first half of the operators (in OnnxGraph order) on stage 0 (gpu:0), the rest on stage 1
// (gpu:1); the CPU is offered but unused.
PlacementPlan twoStagePlan(const OnnxGraph& graph) {
  PlacementPlan plan;
  plan.devices = {{"gpu:0", true, 0}, {"gpu:1", true, 1}, {"cpu", false, 0}};
  plan.stages = {{0, "stage0", 0.5, 1e6}, {1, "stage1", 0.25, 2e6}};
  const std::size_t n = graph.nodes.size();
  for (std::size_t i = 0; i < n; ++i)
    plan.stage_of_node.push_back(i < n / 2 ? 0 : 1);
  plan.algorithm = "dp";
  plan.status = "optimal";
  plan.value = 0.5;
  plan.bound = 0.4;
  return plan;
}

onnx::ModelProto parseModel(const std::string& bytes) {
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(bytes));
  return model;
}

// ONNX 1.12's checker stops at IR 8; the fields of IR 10/11 are unknown to it and left alone. A
// model with external data is checked as a file in `dir`, where its side files are.
void expectCheckerPasses(onnx::ModelProto model, const std::filesystem::path& dir = {}) {
  if (model.ir_version() > 8) model.set_ir_version(8);
  try {
    if (dir.empty()) {
      onnx::checker::check_model(model);
    } else {
      const auto path = dir / "checked.onnx";
      writeBytes(path, model.SerializeAsString());
      onnx::checker::check_model(path.string());
      std::filesystem::remove(path);
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "checker: " << e.what();
  }
}

std::optional<std::string> metadataValue(const onnx::ModelProto& model, const std::string& key) {
  std::optional<std::string> value;
  for (const auto& entry : model.metadata_props()) {
    if (entry.key() != key) continue;
    EXPECT_FALSE(value.has_value()) << key << " appears twice";
    value = entry.value();
  }
  return value;
}

// The stage every top-level node of the model should carry: its own, or for a folded constant
// producer the stage of its first reader.
std::vector<int> expectedStages(const OnnxGraph& graph, const PlacementPlan& plan, int model_nodes) {
  std::vector<int> stage(model_nodes, -1);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    stage[graph.nodes[i].onnx_index] = plan.stage_of_node[i];
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    for (int f : graph.nodes[i].folded) {
      if (stage[f] < 0) stage[f] = plan.stage_of_node[i];
    }
  }
  return stage;
}

struct NodeFields {
  std::vector<std::string> layer_annotations;  // values of field 9 entries keyed "layer_ann"
  std::vector<std::pair<std::string, std::int64_t>> configurations;  // field 10: (id, pipeline_stage)
};

NodeFields nodeFields(const WireField& node) {
  NodeFields out;
  auto fields = decodeMessage(node.bytes);
  EXPECT_TRUE(fields.has_value());
  if (!fields) return out;
  for (const WireField& entry : fieldsNumbered(*fields, 9)) {
    EXPECT_EQ(entry.wire_type, 2);
    auto kv = decodeMessage(entry.bytes);
    EXPECT_TRUE(kv.has_value());
    if (!kv) continue;
    auto key = fieldsNumbered(*kv, 1);
    auto value = fieldsNumbered(*kv, 2);
    if (key.size() == 1 && key[0].bytes == "layer_ann") {
      EXPECT_EQ(value.size(), 1u);
      out.layer_annotations.push_back(value.empty() ? "" : value[0].bytes);
    }
  }
  for (const WireField& entry : fieldsNumbered(*fields, 10)) {
    EXPECT_EQ(entry.wire_type, 2);
    auto config = decodeMessage(entry.bytes);
    EXPECT_TRUE(config.has_value());
    if (!config) continue;
    auto id = fieldsNumbered(*config, 1);
    auto stage = fieldsNumbered(*config, 3);
    EXPECT_EQ(id.size(), 1u);
    EXPECT_EQ(stage.size(), 1u);
    if (id.size() == 1 && stage.size() == 1) {
      EXPECT_EQ(stage[0].wire_type, 0);
      out.configurations.emplace_back(id[0].bytes, static_cast<std::int64_t>(stage[0].value));
    }
  }
  return out;
}

// ---- Tests --------------------------------------------------------------------------------------

TEST(AnnotateMode, ParsesTheThreeModes) {
  EXPECT_EQ(*parseAnnotateMode("metadata"), AnnotateMode::Metadata);
  EXPECT_EQ(*parseAnnotateMode("ort"), AnnotateMode::Ort);
  EXPECT_EQ(*parseAnnotateMode("onnx-ir11"), AnnotateMode::OnnxIr11);
  auto bad = parseAnnotateMode("ir11");
  ASSERT_FALSE(bad.hasValue());
  EXPECT_EQ(bad.status().code(), StatusCode::InvalidInput);
  EXPECT_NE(bad.status().message().find("'ir11'"), std::string::npos);
  for (auto mode : {AnnotateMode::Metadata, AnnotateMode::Ort, AnnotateMode::OnnxIr11}) {
    EXPECT_EQ(*parseAnnotateMode(annotateModeName(mode)), mode);
  }
}

// The plan JSON names every operator once, with its stage and device, and the names are the model's:
// unnamed nodes now carry their generated names; `generated` counts those.
void expectPlanMetadata(const onnx::ModelProto& original, const onnx::ModelProto& model,
                        const OnnxGraph& graph, const PlacementPlan& plan, int& generated) {
  auto plan_text = metadataValue(model, "onnx_placer.plan");
  ASSERT_TRUE(plan_text.has_value());
  const auto json = nlohmann::ordered_json::parse(*plan_text);
  EXPECT_EQ(json["version"], 1);
  EXPECT_EQ(json["objective"], "throughput");
  EXPECT_EQ(json["algorithm"], "dp");
  EXPECT_EQ(json["status"], "optimal");
  EXPECT_DOUBLE_EQ(json["max_load_seconds"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(json["bound_seconds"].get<double>(), 0.4);
  ASSERT_EQ(json["devices"].size(), 3u);
  EXPECT_EQ(json["devices"][2]["name"], "cpu");
  EXPECT_EQ(json["devices"][2]["accelerator"], false);
  ASSERT_EQ(json["stages"].size(), 2u);
  EXPECT_EQ(json["stages"][1]["label"], "stage1");
  EXPECT_EQ(json["stages"][1]["device"], "gpu:1");
  EXPECT_DOUBLE_EQ(json["stages"][1]["memory"].get<double>(), 2e6);
  EXPECT_EQ(json["layer_assignment_settings"], "gpu:0(=stage0); gpu:1(=stage1)");
  EXPECT_EQ(metadataValue(model, "onnx_placer.layer_assignment_settings"), plan.layerAssignmentSettings());
  ASSERT_EQ(json["nodes"].size(), graph.nodes.size());
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const OnnxNode& node = graph.nodes[i];
    generated += node.generated_name ? 1 : 0;
    EXPECT_EQ(model.graph().node(node.onnx_index).name(), node.name);
    ASSERT_TRUE(json["nodes"].contains(node.name)) << node.name;
    EXPECT_EQ(json["nodes"][node.name]["stage"], plan.stage_of_node[i]) << node.name;
    EXPECT_EQ(json["nodes"][node.name]["device"], i < graph.nodes.size() / 2 ? "gpu:0" : "gpu:1");
  }
  // Names the model gave are kept; only unnamed nodes were named.
  for (int i = 0; i < original.graph().node_size(); ++i) {
    if (!original.graph().node(i).name().empty()) {
      EXPECT_EQ(model.graph().node(i).name(), original.graph().node(i).name());
    }
  }
}

// Each node's raw fields 9 (metadata_props: the stage's layer annotation) and 10 (device
// configurations), per mode.
void expectNodeFields(const std::vector<WireField>& graph_fields, const onnx::ModelProto& model,
                      const OnnxGraph& graph, const PlacementPlan& plan, AnnotateMode mode) {
  const auto nodes = fieldsNumbered(graph_fields, 1);
  ASSERT_EQ(static_cast<int>(nodes.size()), model.graph().node_size());
  const std::vector<int> stages = expectedStages(graph, plan, model.graph().node_size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeFields fields = nodeFields(nodes[i]);
    const std::string what = "node " + std::to_string(i) + " (" + model.graph().node(i).op_type() + ")";
    ASSERT_GE(stages[i], 0) << what << " is neither placed nor folded into a placed node";
    if (mode == AnnotateMode::Metadata) {
      EXPECT_TRUE(fields.layer_annotations.empty()) << what;
    } else {
      EXPECT_EQ(fields.layer_annotations, std::vector<std::string>{plan.stages[stages[i]].label}) << what;
    }
    if (mode == AnnotateMode::OnnxIr11) {
      ASSERT_EQ(fields.configurations.size(), 1u) << what;
      EXPECT_EQ(fields.configurations[0].first, "onnx_placer") << what;
      EXPECT_EQ(fields.configurations[0].second, stages[i]) << what;
    } else {
      EXPECT_TRUE(fields.configurations.empty()) << what;
    }
  }
}

// The model's field 26 (device configurations): only with onnx-ir11, naming the stages' devices.
void expectModelConfiguration(const std::vector<WireField>& top, AnnotateMode mode) {
  const auto configurations = fieldsNumbered(top, 26);
  if (mode != AnnotateMode::OnnxIr11) {
    EXPECT_TRUE(configurations.empty());
  } else {
    ASSERT_EQ(configurations.size(), 1u);
    auto config = decodeMessage(configurations[0].bytes);
    ASSERT_TRUE(config.has_value());
    auto name = fieldsNumbered(*config, 1);
    auto num_devices = fieldsNumbered(*config, 2);
    auto devices = fieldsNumbered(*config, 3);
    ASSERT_EQ(name.size(), 1u);
    EXPECT_EQ(name[0].bytes, "onnx_placer");
    ASSERT_EQ(num_devices.size(), 1u);
    EXPECT_EQ(num_devices[0].wire_type, 0);
    EXPECT_EQ(num_devices[0].value, 2u);  // the CPU is offered but holds no stage
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_EQ(devices[0].bytes, "gpu:0");
    EXPECT_EQ(devices[1].bytes, "gpu:1");
  }
}

class BundledModels : public ::testing::TestWithParam<std::tuple<const char*, AnnotateMode>> {};

TEST_P(BundledModels, AnnotatedModelIsValidAndCarriesThePlan) {
  const auto [file, mode] = GetParam();
  const auto input = dataPath(std::string("models/") + file);
  const std::string input_before = readBytes(input);
  auto graph = loadOnnx(input);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  const PlacementPlan plan = twoStagePlan(*graph);

  auto bytes = annotatedModelBytes(input, *graph, plan, mode);
  ASSERT_TRUE(bytes.hasValue()) << bytes.status().message();
  EXPECT_EQ(readBytes(input), input_before) << "the input model was modified";

  const onnx::ModelProto original = parseModel(input_before);
  const onnx::ModelProto model = parseModel(*bytes);
  ASSERT_EQ(model.graph().node_size(), original.graph().node_size());
  const std::int64_t expected_ir = mode == AnnotateMode::Metadata ? original.ir_version()
                                   : mode == AnnotateMode::Ort    ? 10
                                                                  : 11;
  EXPECT_EQ(model.ir_version(), expected_ir);
  expectCheckerPasses(model);
  int generated = 0;
  expectPlanMetadata(original, model, *graph, plan, generated);
  if (HasFatalFailure()) return;
  RecordProperty("generated_names", generated);

  // The raw bytes: IR version, node fields 9 and 10, model field 26.
  auto top = decodeMessage(*bytes);
  ASSERT_TRUE(top.has_value());
  auto ir = fieldsNumbered(*top, 1);
  ASSERT_EQ(ir.size(), 1u);
  EXPECT_EQ(static_cast<std::int64_t>(ir[0].value), expected_ir);
  auto graph_field = fieldsNumbered(*top, 7);
  ASSERT_EQ(graph_field.size(), 1u);
  auto graph_fields = decodeMessage(graph_field[0].bytes);
  ASSERT_TRUE(graph_fields.has_value());
  expectNodeFields(*graph_fields, model, *graph, plan, mode);
  if (HasFatalFailure()) return;
  expectModelConfiguration(*top, mode);
}

INSTANTIATE_TEST_SUITE_P(Modes, BundledModels,
                         ::testing::Combine(::testing::Values("light_squeezenet.onnx", "resnet50_light.onnx",
                                                              "mobilenet_v2_light.onnx"),
                                            ::testing::Values(AnnotateMode::Metadata, AnnotateMode::Ort,
                                                              AnnotateMode::OnnxIr11)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param);
                           name = name.substr(0, name.find('.'));
                           std::string mode(annotateModeName(std::get<1>(info.param)));
                           for (char& c : mode) {
                             if (c == '-') c = '_';
                           }
                           return name + "_" + mode;
                         });

// The bundled models name every operator (only their folded ConstantOfShape weights are unnamed), so
// this strips the names of every other operator of one.
TEST(AnnotatedModel, UnnamedOperatorsGetTheirGeneratedNames) {
  TempDir dir;
  onnx::ModelProto source = parseModel(readBytes(dataPath("models/light_squeezenet.onnx")));
  int stripped = 0;
  for (auto& node : *source.mutable_graph()->mutable_node()) {
    if (node.op_type() != "ConstantOfShape" && stripped++ % 2 == 0) node.clear_name();
  }
  const auto input = dir.path() / "unnamed.onnx";
  writeBytes(input, source.SerializeAsString());
  auto graph = loadOnnx(input);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  int generated = 0;
  for (const OnnxNode& node : graph->nodes)
    generated += node.generated_name ? 1 : 0;
  ASSERT_EQ(generated, (stripped + 1) / 2);
  const PlacementPlan plan = twoStagePlan(*graph);
  for (auto mode : {AnnotateMode::Metadata, AnnotateMode::Ort, AnnotateMode::OnnxIr11}) {
    auto bytes = annotatedModelBytes(input, *graph, plan, mode);
    ASSERT_TRUE(bytes.hasValue()) << bytes.status().message();
    const onnx::ModelProto model = parseModel(*bytes);
    expectCheckerPasses(model);
    const auto json = nlohmann::ordered_json::parse(*metadataValue(model, "onnx_placer.plan"));
    ASSERT_EQ(json["nodes"].size(), graph->nodes.size());
    for (std::size_t i = 0; i < graph->nodes.size(); ++i) {
      const OnnxNode& node = graph->nodes[i];
      EXPECT_EQ(model.graph().node(node.onnx_index).name(), node.name);
      ASSERT_TRUE(json["nodes"].contains(node.name)) << node.name;
      EXPECT_EQ(json["nodes"][node.name]["stage"], plan.stage_of_node[i]);
    }
    // The folded weight producers are not in the plan and keep their (empty) names.
    for (const auto& node : model.graph().node()) {
      if (node.op_type() == "ConstantOfShape") {
        EXPECT_TRUE(node.name().empty());
      }
    }
  }
}

// Constants chained into constants, a constant nobody reads, nodes inside If branches.
TEST(AnnotatedModel, FoldedConstantsAndSubgraphNodesGetTheirReadersStage) {
  TempDir dir;
  onnx::ModelProto source;
  auto parsed = onnx::OnnxParser::Parse(source, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 4] x, bool c) => (float[2, 4] y, int64[2] k) {
      a = Relu(x)
      shape = Constant <value = int64[2] {4, 4}> ()
      w = ConstantOfShape <value = float[1] {0.5}> (shape)
      h = MatMul(a, w)
      y = If (c) <then_branch = then_body () => (float[2, 4] t) { t = Relu(h) },
                  else_branch = else_body () => (float[2, 4] e) { e = Neg(h) }>
      k = Constant <value = int64[2] {1, 2}> ()
    })");
  ASSERT_TRUE(parsed.IsOK()) << parsed.ErrorMessage();
  const auto input = dir.path() / "small.onnx";
  writeBytes(input, source.SerializeAsString());
  auto graph = loadOnnx(input);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 3u);  // Relu, MatMul, If

  PlacementPlan plan;
  plan.devices = {{"gpu:0", true, 0}, {"gpu:1", true, 1}, {"cpu", false, 0}};
  plan.stages = {{0, "stage0"}, {1, "stage1"}, {2, "cpu0"}};
  plan.stage_of_node = {0, 1, 2};
  auto bytes = annotatedModelBytes(input, *graph, plan, AnnotateMode::OnnxIr11);
  ASSERT_TRUE(bytes.hasValue()) << bytes.status().message();
  const onnx::ModelProto model = parseModel(*bytes);
  expectCheckerPasses(model);

  auto top = decodeMessage(*bytes);
  ASSERT_TRUE(top.has_value());
  auto graph_fields = decodeMessage(fieldsNumbered(*top, 7).at(0).bytes);
  ASSERT_TRUE(graph_fields.has_value());
  const auto nodes = fieldsNumbered(*graph_fields, 1);
  ASSERT_EQ(nodes.size(), 6u);
  // Relu, Constant (read by ConstantOfShape, read by MatMul), ConstantOfShape, MatMul, If, and the
  // unread Constant (no placed node after it: the last stage).
  const std::vector<std::string> labels = {"stage0", "stage1", "stage1", "stage1", "cpu0", "cpu0"};
  const std::vector<std::int64_t> stages = {0, 1, 1, 1, 2, 2};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeFields fields = nodeFields(nodes[i]);
    EXPECT_EQ(fields.layer_annotations, std::vector<std::string>{labels[i]}) << "node " << i;
    ASSERT_EQ(fields.configurations.size(), 1u) << "node " << i;
    EXPECT_EQ(fields.configurations[0].second, stages[i]) << "node " << i;
  }
  // The branches' nodes carry the If node's stage.
  const onnx::NodeProto& if_node = model.graph().node(4);
  ASSERT_EQ(if_node.attribute_size(), 2);
  for (const auto& attribute : if_node.attribute()) {
    ASSERT_EQ(attribute.g().node_size(), 1);
    const std::string inner = attribute.g().node(0).SerializeAsString();
    WireField as_field;
    as_field.bytes = inner;
    const NodeFields fields = nodeFields(as_field);
    EXPECT_EQ(fields.layer_annotations, std::vector<std::string>{"cpu0"}) << attribute.name();
    ASSERT_EQ(fields.configurations.size(), 1u);
    EXPECT_EQ(fields.configurations[0].second, 2);
  }
  // Three devices used, as the configuration says.
  auto config = decodeMessage(fieldsNumbered(*top, 26).at(0).bytes);
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(fieldsNumbered(*config, 2).at(0).value, 3u);
  EXPECT_EQ(fieldsNumbered(*config, 3).size(), 3u);
}

TEST(AnnotatedModel, ReannotatingReplacesTheEarlierAnnotations) {
  TempDir dir;
  const auto input = dataPath("models/light_squeezenet.onnx");
  auto graph = loadOnnx(input);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  const PlacementPlan plan = twoStagePlan(*graph);
  auto first = annotatedModelBytes(input, *graph, plan, AnnotateMode::OnnxIr11);
  ASSERT_TRUE(first.hasValue()) << first.status().message();
  const auto annotated = dir.path() / "annotated.onnx";
  writeBytes(annotated, *first);

  // The same plan again gives the same bytes: nothing is duplicated.
  auto regraph = loadOnnx(annotated);
  ASSERT_TRUE(regraph.hasValue()) << regraph.status().message();
  ASSERT_EQ(regraph->nodes.size(), graph->nodes.size());
  auto again = annotatedModelBytes(annotated, *regraph, plan, AnnotateMode::OnnxIr11);
  ASSERT_TRUE(again.hasValue()) << again.status().message();
  EXPECT_TRUE(*again == *first) << "re-annotating with the same plan changed the model";

  // A different plan in metadata mode: the new plan, and none of the old node annotations.
  PlacementPlan other = plan;
  for (int& s : other.stage_of_node)
    s = 1 - s;
  auto metadata = annotatedModelBytes(annotated, *regraph, other, AnnotateMode::Metadata);
  ASSERT_TRUE(metadata.hasValue()) << metadata.status().message();
  const onnx::ModelProto model = parseModel(*metadata);
  EXPECT_EQ(model.metadata_props_size(), parseModel(*first).metadata_props_size());
  const auto json = nlohmann::ordered_json::parse(*metadataValue(model, "onnx_placer.plan"));
  EXPECT_EQ(json["nodes"][regraph->nodes[0].name]["stage"], 1);
  auto top = decodeMessage(*metadata);
  ASSERT_TRUE(top.has_value());
  EXPECT_TRUE(fieldsNumbered(*top, 26).empty());
  auto graph_fields = decodeMessage(fieldsNumbered(*top, 7).at(0).bytes);
  ASSERT_TRUE(graph_fields.has_value());
  for (const WireField& node : fieldsNumbered(*graph_fields, 1)) {
    const NodeFields fields = nodeFields(node);
    EXPECT_TRUE(fields.layer_annotations.empty());
    EXPECT_TRUE(fields.configurations.empty());
  }
}

TEST(AnnotatedModel, OtherNodeMetadataIsKept) {
  TempDir dir;
  onnx::ModelProto source;
  ASSERT_TRUE(onnx::OnnxParser::Parse(source, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) {
      y = Relu(x)
    })")
                  .IsOK());
  // An IR 10 entry of someone else's, and a stale layer annotation.
  for (const auto& [key, value] : {std::pair{"origin", "exporter"}, std::pair{"layer_ann", "old"}}) {
    onnx::StringStringEntryProto entry;
    entry.set_key(key);
    entry.set_value(value);
    source.mutable_graph()->mutable_node(0)->mutable_unknown_fields()->AddLengthDelimited(
        9, entry.SerializeAsString());
  }
  const auto input = dir.path() / "tagged.onnx";
  writeBytes(input, source.SerializeAsString());
  auto graph = loadOnnx(input);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  PlacementPlan plan;
  plan.devices = {{"gpu:0", true, 0}};
  plan.stages = {{0, "stage0"}};
  plan.stage_of_node = {0};
  auto bytes = annotatedModelBytes(input, *graph, plan, AnnotateMode::Ort);
  ASSERT_TRUE(bytes.hasValue()) << bytes.status().message();
  const onnx::ModelProto model = parseModel(*bytes);
  const auto& unknown = model.graph().node(0).unknown_fields();
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < unknown.field_count(); ++i) {
    ASSERT_EQ(unknown.field(i).number(), 9);
    onnx::StringStringEntryProto entry;
    ASSERT_TRUE(entry.ParseFromString(unknown.field(i).length_delimited()));
    entries.emplace_back(entry.key(), entry.value());
  }
  const std::vector<std::pair<std::string, std::string>> expected = {{"origin", "exporter"},
                                                                     {"layer_ann", "stage0"}};
  EXPECT_EQ(entries, expected);
}

// An initializer stored in a side file: the reference survives as it was, the file is never opened.
TEST(AnnotatedModel, ExternalDataIsKeptAndNeverRead) {
  TempDir dir;
  onnx::ModelProto source;
  ASSERT_TRUE(onnx::OnnxParser::Parse(source, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1, 4] x) => (float[1, 4] y) {
      h = MatMul(x, w)
      y = Add(h, b)
    })")
                  .IsOK());
  auto* w = source.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [key, value] :
       {std::pair{"location", "weights.bin"}, std::pair{"offset", "0"}, std::pair{"length", "64"}}) {
    auto* entry = w->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  auto* b = source.mutable_graph()->add_initializer();
  b->set_name("b");
  b->set_data_type(onnx::TensorProto::FLOAT);
  b->add_dims(4);
  for (int i = 0; i < 4; ++i)
    b->add_float_data(0.5f * static_cast<float>(i));

  const auto input = dir.path() / "external.onnx";
  const auto side = dir.path() / "weights.bin";
  writeBytes(input, source.SerializeAsString());
  const std::string side_bytes(64, '\x3f');
  writeBytes(side, side_bytes);
  const auto side_time = std::filesystem::last_write_time(side);
  auto graph = loadOnnx(input);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 2u);
  EXPECT_TRUE(graph->tensors[graph->tensor_index.at("w")].external_data);
  PlacementPlan plan;
  plan.devices = {{"gpu:0", true, 0}, {"gpu:1", true, 1}};
  plan.stages = {{0, "stage0"}, {1, "stage1"}};
  plan.stage_of_node = {0, 1};

  for (auto mode : {AnnotateMode::Metadata, AnnotateMode::Ort, AnnotateMode::OnnxIr11}) {
    auto bytes = annotatedModelBytes(input, *graph, plan, mode);
    ASSERT_TRUE(bytes.hasValue()) << bytes.status().message();
    const onnx::ModelProto model = parseModel(*bytes);
    ASSERT_EQ(model.graph().initializer_size(), 2);
    EXPECT_EQ(model.graph().initializer(0).SerializeAsString(),
              source.graph().initializer(0).SerializeAsString());
    EXPECT_EQ(model.graph().initializer(1).SerializeAsString(),
              source.graph().initializer(1).SerializeAsString());
    EXPECT_EQ(model.graph().node(0).name(), "MatMul_0");
    EXPECT_EQ(model.graph().node(1).name(), "Add_1");
    expectCheckerPasses(model, dir.path());
  }
  EXPECT_EQ(readBytes(side), side_bytes);
  EXPECT_EQ(std::filesystem::last_write_time(side), side_time);

  // Without the side file the model still annotates: its data is never needed.
  std::filesystem::remove(side);
  auto bytes = annotatedModelBytes(input, *graph, plan, AnnotateMode::Ort);
  ASSERT_TRUE(bytes.hasValue()) << bytes.status().message();
  EXPECT_FALSE(std::filesystem::exists(side));
}

// A model in model/ whose weight lives in model/data/weights.bin. Written where the annotated model
// goes, the location is rewritten to reach the same file from there; where no location can (the file
// is not inside the output's directory, and ONNX takes no "..") it fails, naming the way out.
TEST(AnnotatedModel, ExternalDataLocationsResolveFromTheOutputDirectory) {
  TempDir dir;
  onnx::ModelProto source;
  ASSERT_TRUE(onnx::OnnxParser::Parse(source, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1, 4] x) => (float[1, 4] y) {
      y = MatMul(x, w)
    })")
                  .IsOK());
  auto* w = source.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value("data/weights.bin");
  const auto model_dir = dir.path() / "model";
  std::filesystem::create_directories(model_dir / "data");
  std::filesystem::create_directories(dir.path() / "other");
  const auto input = model_dir / "external.onnx";
  writeBytes(input, source.SerializeAsString());
  writeBytes(model_dir / "data" / "weights.bin", std::string(64, '\0'));
  auto graph = loadOnnx(input);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  PlacementPlan plan;
  plan.devices = {{"gpu:0", true, 0}};
  plan.stages = {{0, "stage0"}};
  plan.stage_of_node = {0};

  auto location_from = [&](const std::filesystem::path& output_dir) -> std::string {
    auto bytes = annotatedModelBytes(input, *graph, plan, AnnotateMode::Metadata, output_dir);
    if (!bytes) return "error: " + bytes.status().message();
    const onnx::ModelProto model = parseModel(*bytes);
    expectCheckerPasses(model, output_dir.empty() ? model_dir : output_dir);  // the file must exist
    return model.graph().initializer(0).external_data(0).value();
  };
  EXPECT_EQ(location_from({}), "data/weights.bin");
  EXPECT_EQ(location_from(model_dir), "data/weights.bin");
  EXPECT_EQ(location_from(dir.path() / "model/"), "data/weights.bin");
  EXPECT_EQ(location_from(dir.path()), "model/data/weights.bin");
  EXPECT_EQ(location_from(model_dir / "data"), "weights.bin");
  const std::string refused = location_from(dir.path() / "other");
  EXPECT_NE(refused.find("error: " + input.string() + ": tensor 'w' keeps its data in " +
                         (model_dir / "data" / "weights.bin").string()),
            std::string::npos)
      << refused;
  EXPECT_NE(refused.find("write the output into " + (model_dir / "data").string()), std::string::npos)
      << refused;
}

TEST(AnnotatedModel, MismatchesAndBadFilesAreNamed) {
  const auto squeezenet = dataPath("models/light_squeezenet.onnx");
  const auto resnet = dataPath("models/resnet50_light.onnx");
  auto graph = loadOnnx(squeezenet);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  const PlacementPlan plan = twoStagePlan(*graph);

  auto other_model = annotatedModelBytes(resnet, *graph, plan, AnnotateMode::Ort);
  ASSERT_FALSE(other_model.hasValue());
  EXPECT_EQ(other_model.status().code(), StatusCode::InvalidInput);
  EXPECT_NE(other_model.status().message().find("resnet50_light.onnx"), std::string::npos);

  PlacementPlan short_plan = plan;
  short_plan.stage_of_node.pop_back();
  auto short_result = annotatedModelBytes(squeezenet, *graph, short_plan, AnnotateMode::Ort);
  ASSERT_FALSE(short_result.hasValue());
  EXPECT_EQ(short_result.status().code(), StatusCode::InvalidInput);

  PlacementPlan bad_stage = plan;
  bad_stage.stage_of_node[0] = 7;
  auto bad_stage_result = annotatedModelBytes(squeezenet, *graph, bad_stage, AnnotateMode::Ort);
  ASSERT_FALSE(bad_stage_result.hasValue());
  EXPECT_NE(bad_stage_result.status().message().find("stage 7"), std::string::npos)
      << bad_stage_result.status().message();

  auto missing = annotatedModelBytes(dataPath("models/no-such-model.onnx"), *graph, plan, AnnotateMode::Ort);
  ASSERT_FALSE(missing.hasValue());
  EXPECT_EQ(missing.status().code(), StatusCode::IoError);
  EXPECT_NE(missing.status().message().find("no-such-model.onnx"), std::string::npos);
}

}  // namespace annotated_model_test
}  // namespace placer::testing
