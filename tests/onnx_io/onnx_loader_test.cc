// The ONNX loader on the bundled model-zoo graphs and on small models written in ONNX's text format.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>

#include "onnx_io/onnx_model.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace onnx_loader_test {

struct ZooModel {
  const char* file;
  double weight_megabytes;  // tests/data/models/README.md (float32 parameters)
};

// The parameter as the test's name shows it (GoogleTest would print its bytes, a pointer among them).
void PrintTo(const ZooModel& c, std::ostream* os) {
  *os << c.file;
}

class ZooModels : public ::testing::TestWithParam<ZooModel> {};

TEST_P(ZooModels, LoadWithStaticShapesAndTheirWeights) {
  auto graph = loadOnnx(dataPath(std::string("models/") + GetParam().file));
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  double weights = 0;
  std::set<int> folded;
  for (const OnnxNode& node : graph->nodes) {
    EXPECT_FALSE(node.op_type == "Constant") << node.name << ": constants are weights, not operators";
    folded.insert(node.folded.begin(), node.folded.end());
  }
  for (const TensorInfo& t : graph->tensors) {
    if (t.is_weight && !t.consumers.empty()) weights += *t.bytes();
    // Every tensor an operator reads, and every graph output, has a static size.
    if (!t.consumers.empty() || t.is_graph_output) {
      EXPECT_TRUE(t.bytes().has_value()) << t.name;
    }
  }
  EXPECT_NEAR(weights / 1e6, GetParam().weight_megabytes, 0.01 * GetParam().weight_megabytes + 0.5);
  // Operators and folded constant producers together are all of the model's nodes.
  std::set<int> placed;
  for (const OnnxNode& node : graph->nodes)
    placed.insert(node.onnx_index);
  for (int f : folded) {
    EXPECT_FALSE(placed.count(f));
  }
  for (const std::string& w : graph->warnings) {
    EXPECT_EQ(w.find("no static shape"), std::string::npos) << w;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Bundled, ZooModels,
    ::testing::Values(ZooModel{"resnet50_light.onnx", 102}, ZooModel{"inception_v3_light.onnx", 95},
                      ZooModel{"googlenet_light.onnx", 26}, ZooModel{"mobilenet_v2_light.onnx", 14},
                      ZooModel{"vgg16_light.onnx", 553}, ZooModel{"bert_base_l3_light.onnx", 183},
                      ZooModel{"bert_base_l6_light.onnx", 268}, ZooModel{"bert_base_l12_light.onnx", 438},
                      ZooModel{"light_resnet50.onnx", 102.4}, ZooModel{"light_vgg19.onnx", 574.7},
                      ZooModel{"light_bvlc_alexnet.onnx", 243.9}, ZooModel{"light_inception_v1.onnx", 28.0},
                      ZooModel{"light_squeezenet.onnx", 4.9}),
    [](const auto& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(OnnxLoader, BertShapeArithmeticIsFolded) {
  // The packed attention projection is sliced with bounds computed by Shape -> Gather -> Div; the
  // Slice outputs get static shapes only once that arithmetic is folded.
  auto graph = loadOnnx(dataPath("models/bert_base_l3_light.onnx"));
  ASSERT_TRUE(graph.hasValue());
  int slices = 0;
  for (const OnnxNode& node : graph->nodes) {
    if (node.op_type != "Slice") continue;
    const TensorInfo& out = graph->tensors[node.outputs[0]];
    if (out.element_type != 1) continue;
    ASSERT_TRUE(out.shape.has_value()) << node.name;
    ++slices;
  }
  EXPECT_GE(slices, 9);
}

// Writes a model given in ONNX's text format to a temporary file.
std::filesystem::path writeModel(const std::string& text, const std::string& name) {
  onnx::ModelProto model;
  auto status = onnx::OnnxParser::Parse(model, text.c_str());
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  auto path = std::filesystem::temp_directory_path() / ("onnx-loader-test-" + name + ".onnx");
  std::ofstream out(path, std::ios::binary);
  model.SerializeToOstream(&out);
  return path;
}

TEST(OnnxLoader, UnnamedAndMultiOutputNodesAndDynamicDims) {
  auto path = writeModel(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[N, 4] x) => (float[N, 2] a, float[N, 2] b) {
      s = Relu(x)
      a, b = Split <axis = 1> (s)
    })",
                         "multi");
  auto graph = loadOnnx(path, LoadOptions{{{"N", 8}}, 1});
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 2u);
  EXPECT_TRUE(graph->nodes[0].generated_name);
  EXPECT_EQ(graph->nodes[0].name, "Relu_0");
  EXPECT_EQ(graph->nodes[1].outputs.size(), 2u);
  const TensorInfo& a = graph->tensors[graph->tensor_index.at("a")];
  EXPECT_EQ(a.shape, (Shape{8, 2}));
  EXPECT_TRUE(a.is_graph_output);
  EXPECT_TRUE(graph->warnings.empty());

  auto defaulted = loadOnnx(path);
  ASSERT_TRUE(defaulted.hasValue());
  ASSERT_FALSE(defaulted->warnings.empty());
  EXPECT_NE(defaulted->warnings[0].find("N set to 1"), std::string::npos) << defaulted->warnings[0];
  std::filesystem::remove(path);
}

TEST(OnnxLoader, SharedWeightsAndConstantsAreFolded) {
  auto path = writeModel(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 4] x) => (float[2, 4] y) {
      shape = Constant <value = int64[2] {4, 4}> ()
      w = ConstantOfShape <value = float[1] {0.5}> (shape)
      h = MatMul(x, w)
      y = MatMul(h, w)
    })",
                         "shared");
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 2u);  // the two MatMuls; Constant and ConstantOfShape are weights
  const TensorInfo& w = graph->tensors[graph->tensor_index.at("w")];
  EXPECT_TRUE(w.is_weight);
  EXPECT_EQ(w.consumers, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(graph->weightBytes(0), 64);
  EXPECT_EQ(graph->nodes[0].folded, (std::vector<int>{1}));  // ConstantOfShape, at onnx index 1
  std::filesystem::remove(path);
}

// torch exports read a parameter several modules share through one Identity per module: those
// Identity nodes are weights (aliases of the initializer), not operators, and each reader counts
// the alias's bytes. An Identity of an activation stays an operator.
TEST(OnnxLoader, IdentityOfAConstantIsAWeight) {
  onnx::ModelProto model;
  ASSERT_TRUE(onnx::OnnxParser::Parse(model, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 4] x) => (float[2, 4] y) {
      w1 = Identity(shared)
      w2 = Identity(shared)
      h = MatMul(x, w1)
      a = Identity(h)
      y = MatMul(a, w2)
    })")
                  .IsOK());
  onnx::TensorProto* shared = model.mutable_graph()->add_initializer();
  shared->set_name("shared");
  shared->set_data_type(onnx::TensorProto::FLOAT);
  shared->add_dims(4);
  shared->add_dims(4);
  for (int i = 0; i < 16; ++i)
    shared->add_float_data(i % 5 == 0 ? 1.0f : 0.0f);
  const auto path = std::filesystem::temp_directory_path() / "onnx-loader-test-identity.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
  }
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 3u);  // the two MatMuls and the Identity of h
  EXPECT_EQ(graph->nodes[0].op_type, "MatMul");
  EXPECT_EQ(graph->nodes[1].op_type, "Identity");
  EXPECT_TRUE(graph->tensors[graph->tensor_index.at("w1")].is_weight);
  EXPECT_TRUE(graph->tensors[graph->tensor_index.at("w2")].is_weight);
  EXPECT_FALSE(graph->tensors[graph->tensor_index.at("a")].is_weight);
  EXPECT_DOUBLE_EQ(graph->weightBytes(0), 64);
  EXPECT_DOUBLE_EQ(graph->weightBytes(2), 64);
  EXPECT_DOUBLE_EQ(graph->weightBytes(1), 0);
  std::filesystem::remove(path);
}

TEST(OnnxLoader, BadFilesAreNamed) {
  auto dir = std::filesystem::temp_directory_path();
  auto missing = loadOnnx(dir / "no-such-model.onnx");
  ASSERT_FALSE(missing.hasValue());
  EXPECT_EQ(missing.status().code(), StatusCode::IoError);
  EXPECT_NE(missing.status().message().find("no-such-model.onnx"), std::string::npos);

  auto text = dir / "onnx-loader-test-text.onnx";
  std::ofstream(text) << "this is not an ONNX model\n";
  auto not_onnx = loadOnnx(text);
  ASSERT_FALSE(not_onnx.hasValue());
  EXPECT_EQ(not_onnx.status().code(), StatusCode::InvalidInput);
  EXPECT_NE(not_onnx.status().message().find("onnx-loader-test-text.onnx"), std::string::npos);

  // A real model cut in half.
  std::ifstream in(dataPath("models/resnet50_light.onnx"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto truncated = dir / "onnx-loader-test-truncated.onnx";
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  auto cut = loadOnnx(truncated);
  ASSERT_FALSE(cut.hasValue());
  EXPECT_NE(cut.status().message().find("truncated"), std::string::npos) << cut.status().message();
  std::filesystem::remove(text);
  std::filesystem::remove(truncated);
}

TEST(OnnxLoader, DanglingInputsAndCyclesAreNamed) {
  onnx::ModelProto model;
  ASSERT_TRUE(onnx::OnnxParser::Parse(model, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) {
      a = Relu(x)
      y = Add(a, x)
    })")
                  .IsOK());
  auto path = std::filesystem::temp_directory_path() / "onnx-loader-test-bad.onnx";
  auto save = [&] {
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
  };
  model.mutable_graph()->mutable_node(1)->set_input(1, "ghost");
  save();
  auto dangling = loadOnnx(path);
  ASSERT_FALSE(dangling.hasValue());
  EXPECT_NE(dangling.status().message().find("'ghost'"), std::string::npos) << dangling.status().message();
  EXPECT_NE(dangling.status().message().find("Add"), std::string::npos);

  // Relu reads Add's output and Add reads Relu's: a cycle.
  model.mutable_graph()->mutable_node(1)->set_input(1, "x");
  model.mutable_graph()->mutable_node(0)->set_input(0, "y");
  save();
  auto cycle = loadOnnx(path);
  ASSERT_FALSE(cycle.hasValue());
  EXPECT_NE(cycle.status().message().find("cycle"), std::string::npos) << cycle.status().message();
  std::filesystem::remove(path);
}

// ONNX's shape inference reads nodes in order and crashes on one that reads a tensor not yet typed
// (Shape, opset 17): nodes out of topological order are sorted for inference, at the top level and in
// bodies; a cycle, and a name nothing defines, are refused before inference with the node named.
TEST(OnnxLoader, NodeOrderIsNotRequired) {
  onnx::ModelProto model;
  ASSERT_TRUE(onnx::OnnxParser::Parse(model, R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 3] x, bool c) => (int64[2] s, float[2, 3] y) {
      a = Relu(x)
      s = Shape(a)
      y = If (c) <then_branch = then_g () => (float[2, 3] t) { u = Relu(a)  t = Neg(u) },
                  else_branch = else_g () => (float[2, 3] e) { e = Neg(a) }>
    })")
                  .IsOK());
  auto* nodes = model.mutable_graph()->mutable_node();
  nodes->SwapElements(0, 1);  // Shape before the Relu that writes its input
  auto* then_nodes =
      model.mutable_graph()->mutable_node(2)->mutable_attribute(0)->mutable_g()->mutable_node();
  then_nodes->SwapElements(0, 1);  // Neg before the Relu that writes its input
  const auto path = std::filesystem::temp_directory_path() / "onnx-loader-test-order.onnx";
  auto save = [&] {
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
  };
  save();
  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  const TensorInfo& shape = graph->tensors[graph->tensor_index.at("s")];
  ASSERT_TRUE(shape.shape.has_value());
  EXPECT_EQ(*shape.shape, Shape{2});

  // The body's Neg now reads the If's own output: a cycle through the If.
  then_nodes->Mutable(0)->set_input(0, "y");
  save();
  auto cycle = loadOnnx(path);
  ASSERT_FALSE(cycle.hasValue());
  EXPECT_NE(cycle.status().message().find(path.string() + ": the graph has a cycle through node 2 (If)"),
            std::string::npos)
      << cycle.status().message();

  then_nodes->Mutable(0)->set_input(0, "ghost");
  save();
  auto ghost = loadOnnx(path);
  ASSERT_FALSE(ghost.hasValue());
  EXPECT_NE(
      ghost.status().message().find("node 2 (If), then_branch, node 0 (Neg) reads tensor 'ghost', which "
                                    "no node, initializer or graph input produces"),
      std::string::npos)
      << ghost.status().message();
  std::filesystem::remove(path);
}

// A graph output that is a graph input or a weight has no producer: inference still types every
// tensor. (It used to stand for the tensor with an empty type, which left the MatMul and everything
// after it without a shape, costed on the fallback.)
TEST(OnnxLoader, GraphInputsAndWeightsAsOutputsKeepEveryShape) {
  onnx::ModelProto model;
  ASSERT_TRUE(onnx::OnnxParser::Parse(model, R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 4] x, float[4, 4] w) => (float[N, 4] y, float[N, 4] x, float[4, 4] w) {
      m = MatMul(x, w)
      y = Relu(m)
    })")
                  .IsOK());
  // w a weight, not an input.
  model.mutable_graph()->mutable_input()->RemoveLast();
  onnx::TensorProto* w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(4);
  for (int i = 0; i < 16; ++i)
    w->add_float_data(0.25f * static_cast<float>(i % 5));
  const auto path = std::filesystem::temp_directory_path() / "onnx-loader-test-passthrough.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    model.SerializeToOstream(&out);
  }
  auto graph = loadOnnx(path, LoadOptions{{{"N", 3}}, 1});
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  for (const char* name : {"m", "y", "x"}) {
    const TensorInfo& tensor = graph->tensors[graph->tensor_index.at(name)];
    ASSERT_TRUE(tensor.shape.has_value()) << name;
    EXPECT_EQ(*tensor.shape, (Shape{3, 4})) << name;
  }
  EXPECT_TRUE(graph->tensors[graph->tensor_index.at("w")].is_weight);
  EXPECT_TRUE(graph->warnings.empty()) << graph->warnings.front();
  std::filesystem::remove(path);
}

// Einsum's output, which libonnx 1.12 gives a rank and no dimensions, gets them from the equation
// (onnx_io/op_inference.h), so the operators after it are costed by their formulas.
TEST(OnnxLoader, EinsumOutputsHaveTheirShapes) {
  auto path = writeModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 3, 4] a, float[N, 4, 5] b) => (float[N, 5] y) {
      e = Einsum <equation = "bij,bjk->bik"> (a, b)
      y = ReduceSum <keepdims = 0> (e, axes)
    })",
                         "einsum");
  onnx::ModelProto model;
  {
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(model.ParseFromIstream(&in));
  }
  onnx::TensorProto* axes = model.mutable_graph()->add_initializer();
  axes->set_name("axes");
  axes->set_data_type(onnx::TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(1);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    model.SerializeToOstream(&out);
  }
  auto graph = loadOnnx(path, LoadOptions{{{"N", 2}}, 1});
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  const TensorInfo& e = graph->tensors[graph->tensor_index.at("e")];
  ASSERT_TRUE(e.shape.has_value());
  EXPECT_EQ(*e.shape, (Shape{2, 3, 5}));
  const TensorInfo& y = graph->tensors[graph->tensor_index.at("y")];
  ASSERT_TRUE(y.shape.has_value());
  EXPECT_EQ(*y.shape, (Shape{2, 5}));
  EXPECT_TRUE(graph->warnings.empty()) << graph->warnings.front();
  std::filesystem::remove(path);
}

}  // namespace onnx_loader_test
}  // namespace placer::testing
