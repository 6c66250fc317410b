// Issue 10's fixtures (tests/data/fidelity, README.md there): ONNX Runtime's contrib operators, a
// run-time attention mask, QDQ and QLinear models, an int4 MatMulNBits decoder and the operator
// forms of opsets 18-21. Against the hand-computed reference of expected.json: every tensor gets
// its static shape, every node's outputs the reference's shapes, the matrix operators their
// multiply-accumulates (within 3%), and no operator falls back to the generic cost. Swin-T (a
// torchvision export whose shapes are computed at run time) against its published 4.5 G MACs.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cost_model/cost_model.h"
#include "cost_model/roofline.h"
#include "onnx_io/onnx_model.h"

namespace placer::testing {
namespace fidelity_test {

const std::string kData = ONNX_PLACER_TEST_DATA_DIR;

nlohmann::json expected() {
  std::ifstream in(kData + "/fidelity/expected.json");
  return nlohmann::json::parse(in);
}

class Fidelity : public ::testing::TestWithParam<std::string> {};

TEST_P(Fidelity, ShapesAndMultiplyAccumulatesMatchTheReference) {
  const nlohmann::json reference = expected().at(GetParam());
  auto loaded = loadOnnx(kData + "/fidelity/" + GetParam());
  ASSERT_TRUE(loaded.hasValue()) << loaded.status().message();
  const OnnxGraph& g = *loaded;
  for (const TensorInfo& t : g.tensors) {
    if (!t.consumers.empty() || t.is_graph_output) {
      EXPECT_TRUE(t.bytes().has_value()) << t.name;
    }
  }
  // Every node's outputs, operator or folded, have the reference's shapes.
  for (const auto& [name, node] : reference.at("per_node").items()) {
    const auto& outputs = node.at("outputs");
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      auto it = g.tensor_index.find(outputs[k].get<std::string>());
      if (it == g.tensor_index.end()) continue;  // a constant nobody reads
      const TensorInfo& t = g.tensors[it->second];
      ASSERT_TRUE(t.shape.has_value()) << name << " output " << k;
      EXPECT_EQ(*t.shape, node.at("output_shapes")[k].get<Shape>()) << name << " output " << k;
    }
  }
  double macs = 0;
  for (int v = 0; v < static_cast<int>(g.nodes.size()); ++v) {
    const OpWork work = estimateWork(shapeInfo(g, v));
    EXPECT_TRUE(work.estimated) << g.nodes[v].name << " (" << g.nodes[v].op_type << "): " << work.note;
    macs += work.macs;
    const auto per_node = reference.at("per_node");
    if (per_node.contains(g.nodes[v].name)) {
      const double want = per_node.at(g.nodes[v].name).value("macs", 0.0);
      EXPECT_NEAR(work.macs, want, 0.03 * want) << g.nodes[v].name << " (" << g.nodes[v].op_type << ")";
    }
  }
  const double want = reference.at("macs").get<double>();
  EXPECT_NEAR(macs, want, 0.03 * want) << GetParam();
}

// LSTM, GRU, Einsum and TopK (tests/data/fidelity/make_sequence_ops.py works out the MACs): every
// tensor has a shape, every operator a formula, and the MACs are the script's.
TEST(FidelitySequenceOps, RecurrentEinsumAndTopKAreCostedByFormula) {
  auto loaded = loadOnnx(kData + "/fidelity/sequence_ops.onnx", LoadOptions{{{"S", 6}, {"N", 3}}, 1});
  ASSERT_TRUE(loaded.hasValue()) << loaded.status().message();
  const OnnxGraph& g = *loaded;
  EXPECT_TRUE(g.warnings.empty()) << g.warnings.front();
  EXPECT_EQ(*g.tensors[g.tensor_index.at("e")].shape, (Shape{6, 3, 16}));
  EXPECT_EQ(*g.tensors[g.tensor_index.at("top_values")].shape, (Shape{6, 3, 4}));
  const std::map<std::string, double> want = {{"lstm", 27648}, {"gru", 55296}, {"merge_directions", 9216}, {"topk", 0}};
  for (int v = 0; v < static_cast<int>(g.nodes.size()); ++v) {
    const OpWork work = estimateWork(shapeInfo(g, v));
    EXPECT_TRUE(work.estimated) << g.nodes[v].name << ": " << work.note;
    if (auto it = want.find(g.nodes[v].name); it != want.end()) {
      EXPECT_DOUBLE_EQ(work.macs, it->second) << g.nodes[v].name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Fidelity,
                         ::testing::Values("contrib_ops.onnx", "contrib_unrunnable.onnx", "mask_range_where.onnx",
                                           "matmulnbits_decoder.onnx", "opset18_forms.onnx", "opset21_forms.onnx",
                                           "qdq_cnn.onnx", "qlinear_ops.onnx"),
                         [](const auto& info) { return info.param.substr(0, info.param.find('.')); });

TEST(Fidelity, TheRunTimeMaskIsFoldedToConstants) {
  auto loaded = loadOnnx(kData + "/fidelity/mask_range_where.onnx");
  ASSERT_TRUE(loaded.hasValue());
  std::set<std::string> folded;
  for (const FoldedNode& f : loaded->folded_nodes)
    folded.insert(f.op_type);
  for (const char* op : {"Shape", "Gather", "Range", "Greater", "Less", "Equal", "Mod", "Expand", "Cast"})
    EXPECT_TRUE(folded.count(op)) << op << " folded";
  for (const OnnxNode& node : loaded->nodes) {
    EXPECT_NE(node.op_type, "Range") << node.name << " is an operator";
    EXPECT_NE(node.op_type, "Shape") << node.name << " is an operator";
  }
}

TEST(Fidelity, NewerOpsetsAreCheckedByOurOwnRulesAndSaySo) {
  auto loaded = loadOnnx(kData + "/fidelity/opset21_forms.onnx");
  ASSERT_TRUE(loaded.hasValue()) << loaded.status().message();
  bool said = false;
  for (const std::string& w : loaded->warnings)
    said = said || w.find("opset 21") != std::string::npos;
  EXPECT_TRUE(said) << "a warning that libonnx cannot check opset 21";
  // The int4 weight counts half a byte per element: [32, 16] is 256 bytes.
  auto it = loaded->tensor_index.find("w_int4");
  ASSERT_NE(it, loaded->tensor_index.end());
  EXPECT_EQ(loaded->tensors[it->second].element_type, 22);
  EXPECT_DOUBLE_EQ(*loaded->tensors[it->second].bytes(), 256.0);
}

// torchvision's Swin-T: its windows, relative-position tables and shifted-window masks are computed
// at run time from Shape. Published: 4.49 GFLOPS (torchvision counts multiply-accumulates) at 224.
TEST(Fidelity, SwinTransformerHasItsPublishedMultiplyAccumulates) {
  auto loaded = loadOnnx(kData + "/scale/swin_t_light.onnx");
  ASSERT_TRUE(loaded.hasValue()) << loaded.status().message();
  const OnnxGraph& g = *loaded;
  int unknown = 0;
  for (const TensorInfo& t : g.tensors)
    unknown += (!t.consumers.empty() || t.is_graph_output) && !t.bytes() ? 1 : 0;
  EXPECT_EQ(unknown, 0);
  double macs = 0;
  int fallback = 0;
  for (int v = 0; v < static_cast<int>(g.nodes.size()); ++v) {
    const OpWork work = estimateWork(shapeInfo(g, v));
    macs += work.macs;
    fallback += work.estimated ? 0 : 1;
  }
  EXPECT_EQ(fallback, 0);
  EXPECT_NEAR(macs, 4.49e9, 0.03 * 4.49e9);
}

}  // namespace fidelity_test
}  // namespace placer::testing
