// Opsets 7 to 17: the same small convolutional network written at every opset, with the operators
// whose signatures changed on the way in each opset's own form (Clip's bounds become inputs at 11, Pad's
// pads at 11, Slice's starts/ends/axes at 10, Split's split and Squeeze/Unsqueeze/ReduceSum's axes at
// 13, Upsample gives way to Resize at 10 and Resize's roi becomes optional at 13, Softmax's default
// axis and meaning change at 13), and the IR version that shipped with each opset (IR 3 for opsets 7 and
// 8, with every initializer also a graph input as model-zoo files of that time have). Each loads with a
// static size for every tensor an operator reads, costs the same finite work at every opset, places
// with the DP, and the annotated model and every stage pass the ONNX 1.12 checker and re-load to the
// model's operators.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "onnx_io/onnx_model.h"
#include "tests/onnx_io/placement_check.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace opsets_test {

// The IR version released with each opset (ONNX 1.2 to 1.12).
std::int64_t irVersionFor(int opset) {
  switch (opset) {
    case 7:
    case 8:
      return 3;
    case 9:
      return 4;
    case 10:
      return 5;
    case 11:
      return 6;
    case 12:
    case 13:
    case 14:
      return 7;
    default:
      return 8;
  }
}

using Dims = std::vector<std::int64_t>;

void setType(onnx::ValueInfoProto& info, const std::string& name, int element_type, const Dims& dims) {
  info.set_name(name);
  auto* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(element_type);
  auto* shape = tensor->mutable_shape();
  for (std::int64_t d : dims)
    shape->add_dim()->set_dim_value(d);
}

// Writes a model node by node; initializers are also graph inputs below IR 4.
class ModelWriter {
 public:
  explicit ModelWriter(int opset) : opset_(opset) {
    model_.set_ir_version(irVersionFor(opset));
    model_.set_producer_name("onnx-placer tests");
    auto* import = model_.add_opset_import();
    import->set_domain("");
    import->set_version(opset);
    model_.mutable_graph()->set_name("opset" + std::to_string(opset));
  }

  int opset() const { return opset_; }

  void input(const std::string& name, const Dims& dims) {
    setType(*model_.mutable_graph()->add_input(), name, onnx::TensorProto::FLOAT, dims);
  }
  void output(const std::string& name, const Dims& dims) {
    setType(*model_.mutable_graph()->add_output(), name, onnx::TensorProto::FLOAT, dims);
  }

  // A float initializer, every value 0.01 (a scalar for empty `dims`).
  void weight(const std::string& name, const Dims& dims) {
    onnx::TensorProto& t = initializer(name, onnx::TensorProto::FLOAT, dims);
    std::int64_t count = 1;
    for (std::int64_t d : dims)
      count *= d;
    for (std::int64_t i = 0; i < count; ++i)
      t.add_float_data(0.01f);
  }
  void floats(const std::string& name, const std::vector<float>& values) {
    onnx::TensorProto& t =
        initializer(name, onnx::TensorProto::FLOAT, {static_cast<std::int64_t>(values.size())});
    for (float v : values)
      t.add_float_data(v);
  }
  void scalar(const std::string& name, float value) {
    initializer(name, onnx::TensorProto::FLOAT, {}).add_float_data(value);
  }
  void ints(const std::string& name, const std::vector<std::int64_t>& values) {
    onnx::TensorProto& t =
        initializer(name, onnx::TensorProto::INT64, {static_cast<std::int64_t>(values.size())});
    for (std::int64_t v : values)
      t.add_int64_data(v);
  }

  onnx::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) {
    onnx::NodeProto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op_type);
    n->set_name(op_type + "_" + outputs.front());
    for (const std::string& i : inputs)
      n->add_input(i);
    for (const std::string& o : outputs)
      n->add_output(o);
    return *n;
  }

  const onnx::ModelProto& model() const { return model_; }

 private:
  onnx::TensorProto& initializer(const std::string& name, int element_type, const Dims& dims) {
    onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(element_type);
    for (std::int64_t d : dims)
      t->add_dims(d);
    if (model_.ir_version() < 4) setType(*model_.mutable_graph()->add_input(), name, element_type, dims);
    return *t;
  }

  int opset_;
  onnx::ModelProto model_;
};

void intsAttribute(onnx::NodeProto& node, const std::string& name, const std::vector<std::int64_t>& values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (std::int64_t v : values)
    a->add_ints(v);
}

void intAttribute(onnx::NodeProto& node, const std::string& name, std::int64_t value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void floatAttribute(onnx::NodeProto& node, const std::string& name, float value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

void floatsAttribute(onnx::NodeProto& node, const std::string& name, const std::vector<float>& values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float v : values)
    a->add_floats(v);
}

void stringAttribute(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

// Conv -> BatchNormalization -> Relu (the same at every opset).
void addConvBlock(ModelWriter& m) {
  m.weight("conv_w", {4, 3, 3, 3});
  m.weight("conv_b", {4});
  auto& conv = m.node("Conv", {"x", "conv_w", "conv_b"}, {"conv"});
  intsAttribute(conv, "kernel_shape", {3, 3});
  intsAttribute(conv, "pads", {1, 1, 1, 1});

  for (const char* name : {"bn_scale", "bn_bias", "bn_mean", "bn_var"})
    m.weight(name, {4});
  m.node("BatchNormalization", {"conv", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"bn"});
  m.node("Relu", {"bn"}, {"relu"});
}

// Clip (bounds as attributes before opset 11, as inputs from 11) -> Dropout (a ratio attribute
// before 12).
void addClipDropout(ModelWriter& m, int opset) {
  if (opset < 11) {
    auto& clip = m.node("Clip", {"relu"}, {"clip"});
    floatAttribute(clip, "min", 0.0f);
    floatAttribute(clip, "max", 6.0f);
  } else {
    m.scalar("clip_min", 0.0f);
    m.scalar("clip_max", 6.0f);
    m.node("Clip", {"relu", "clip_min", "clip_max"}, {"clip"});
  }

  auto& dropout = m.node("Dropout", {"clip"}, {"dropout"});
  if (opset < 12) floatAttribute(dropout, "ratio", 0.5f);
}

// Pad and Slice: their attributes became inputs at opsets 11 and 10.
void addPadSlice(ModelWriter& m, int opset) {
  const std::vector<std::int64_t> pads = {0, 0, 1, 1, 0, 0, 1, 1};
  if (opset < 11) {
    auto& pad = m.node("Pad", {"dropout"}, {"pad"});
    intsAttribute(pad, "pads", pads);
    stringAttribute(pad, "mode", "constant");
  } else {
    m.ints("pad_pads", pads);
    m.node("Pad", {"dropout", "pad_pads"}, {"pad"});
  }

  if (opset < 10) {
    auto& slice = m.node("Slice", {"pad"}, {"slice"});
    intsAttribute(slice, "starts", {1, 1});
    intsAttribute(slice, "ends", {9, 9});
    intsAttribute(slice, "axes", {2, 3});
  } else {
    m.ints("slice_starts", {1, 1});
    m.ints("slice_ends", {9, 9});
    m.ints("slice_axes", {2, 3});
    m.node("Slice", {"pad", "slice_starts", "slice_ends", "slice_axes"}, {"slice"});
  }
}

// Upsample (scales an attribute before 9, an input at 9), Resize from 10 (an roi input at 11 and 12,
// left empty from 13).
void addUpsample(ModelWriter& m, int opset) {
  const std::vector<float> scales = {1, 1, 2, 2};
  if (opset < 9) {
    auto& upsample = m.node("Upsample", {"slice"}, {"up"});
    floatsAttribute(upsample, "scales", scales);
    stringAttribute(upsample, "mode", "nearest");
  } else {
    m.floats("up_scales", scales);
    if (opset == 9) {
      m.node("Upsample", {"slice", "up_scales"}, {"up"});
    } else if (opset == 10) {
      m.node("Resize", {"slice", "up_scales"}, {"up"});
    } else if (opset < 13) {
      m.floats("up_roi", {});
      m.node("Resize", {"slice", "up_roi", "up_scales"}, {"up"});
    } else {
      m.node("Resize", {"slice", "", "up_scales"}, {"up"});
    }
  }
}

// MaxPool -> Split -> (Unsqueeze -> Squeeze, ReduceSum) -> Add -> Softmax -> Flatten: split sizes and
// axes became inputs at 13.
void addPoolSplitBranches(ModelWriter& m, int opset) {
  auto& pool = m.node("MaxPool", {"up"}, {"pool"});
  intsAttribute(pool, "kernel_shape", {2, 2});
  intsAttribute(pool, "strides", {2, 2});

  if (opset < 13) {
    auto& split = m.node("Split", {"pool"}, {"half_a", "half_b"});
    intAttribute(split, "axis", 1);
    intsAttribute(split, "split", {2, 2});
    intsAttribute(m.node("Unsqueeze", {"half_a"}, {"unsq"}), "axes", {0});
    intsAttribute(m.node("Squeeze", {"unsq"}, {"sq"}), "axes", {0});
    intsAttribute(m.node("ReduceSum", {"half_b"}, {"rsum"}), "axes", {2, 3});
  } else {
    m.ints("split_sizes", {2, 2});
    intAttribute(m.node("Split", {"pool", "split_sizes"}, {"half_a", "half_b"}), "axis", 1);
    m.ints("axes0", {0});
    m.node("Unsqueeze", {"half_a", "axes0"}, {"unsq"});
    m.node("Squeeze", {"unsq", "axes0"}, {"sq"});
    m.ints("axes23", {2, 3});
    m.node("ReduceSum", {"half_b", "axes23"}, {"rsum"});
  }
  m.node("Add", {"sq", "rsum"}, {"sum"});
  // The default axis is 1 before opset 13 (the input flattened to 2-D there) and -1 from 13 on; the
  // output shape, and the cost, are the same either way.
  m.node("Softmax", {"sum"}, {"softmax"});
  intAttribute(m.node("Flatten", {"softmax"}, {"flat"}), "axis", 1);
}

// x {1,3,8,8} -> Conv -> BatchNormalization -> Relu -> Clip -> Dropout -> Pad -> Slice -> Upsample or
// Resize -> MaxPool -> Split -> (Unsqueeze -> Squeeze, ReduceSum) -> Add -> Softmax -> Flatten ->
// Gemm -> MatMul -> Sigmoid -> y {1,10}.
onnx::ModelProto networkAt(int opset) {
  ModelWriter m(opset);
  m.input("x", {1, 3, 8, 8});
  m.output("y", {1, 10});
  addConvBlock(m);
  addClipDropout(m, opset);
  addPadSlice(m, opset);
  addUpsample(m, opset);
  addPoolSplitBranches(m, opset);
  m.weight("gemm_w", {128, 10});
  m.weight("gemm_c", {10});
  m.node("Gemm", {"flat", "gemm_w", "gemm_c"}, {"gemm"});
  m.weight("mm_w", {10, 10});
  m.node("MatMul", {"gemm", "mm_w"}, {"mm"});
  m.node("Sigmoid", {"mm"}, {"y"});
  return m.model();
}

class Opsets : public ::testing::TestWithParam<int> {};

// The network's roofline FLOPs, the same at every opset: Conv 2·(1·4·8·8)·27 + 256 bias = 14080,
// BatchNormalization 2·256, Relu 256, Clip 256, Dropout 0 (a view), Pad 0, Slice 0, Upsample/Resize
// 1024, MaxPool 256·4, Split 0, Unsqueeze/Squeeze 0, ReduceSum 128, Add 128, Softmax 8·128, Flatten 0,
// Gemm 2·1280 + 10, MatMul 2·100, Sigmoid 4·10.
constexpr double kNetworkFlops = 14080 + 512 + 256 + 256 + 1024 + 1024 + 128 + 128 + 1024 + 2570 + 200 + 40;

TEST_P(Opsets, LoadCostPlaceAndWriteBack) {
  const int opset = GetParam();
  const std::string where = "opset " + std::to_string(opset);
  const onnx::ModelProto model = networkAt(opset);
  expectCheckerAccepts(model, where + ", the test's own model");
  ScratchDirectory dir("opsets");
  const auto path = dir.write("opset" + std::to_string(opset) + ".onnx", model);

  auto graph = loadOnnx(path);
  ASSERT_TRUE(graph.hasValue()) << where << ": " << graph.status().message();
  EXPECT_EQ(graph->ir_version, irVersionFor(opset));
  EXPECT_EQ(graph->nodes.size(), 19u) << where;
  EXPECT_TRUE(graph->warnings.empty()) << where << ": " << graph->warnings.front();
  for (const TensorInfo& t : graph->tensors) {
    if (!t.consumers.empty() || t.is_graph_output) {
      EXPECT_TRUE(t.bytes().has_value()) << where << ": " << t.name << " has no static size";
    }
  }
  EXPECT_EQ(graph->tensors[graph->tensor_index.at("up")].shape, (Shape{1, 4, 16, 16})) << where;
  EXPECT_EQ(graph->tensors[graph->tensor_index.at("sq")].shape, (Shape{1, 2, 8, 8})) << where;

  double flops = 0;
  for (int v = 0; v < static_cast<int>(graph->nodes.size()); ++v) {
    const OpWork work = estimateWork(shapeInfo(*graph, v));
    EXPECT_TRUE(std::isfinite(work.flops) && std::isfinite(work.bytes_read + work.bytes_written))
        << where << ": " << graph->nodes[v].name;
    EXPECT_TRUE(work.estimated) << where << ": " << graph->nodes[v].name << ": " << work.note;
    flops += work.flops;
  }
  EXPECT_DOUBLE_EQ(flops, kNetworkFlops) << where;

  DeviceSpec devices = *devicePreset(kDefaultDevicePreset);
  devices.accelerators.count = 3;
  const PlacementPlan plan = placeWithDp(*graph, devices, where);
  ASSERT_EQ(plan.stage_of_node.size(), graph->nodes.size()) << where;
  expectWritesValidModels(path, *graph, plan, where + ", dp");
  expectWritesValidModels(path, *graph, chunkPlan(*graph, 3), where + ", 3 chunks");
}

INSTANTIATE_TEST_SUITE_P(SevenToSeventeen, Opsets, ::testing::Range(7, 18),
                         [](const auto& info) { return "opset" + std::to_string(info.param); });

}  // namespace opsets_test
}  // namespace placer::testing
