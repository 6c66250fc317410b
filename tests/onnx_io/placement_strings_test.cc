// Olive's split_assignments and ONNX Runtime's name-based layer assignment (onnx_io/
// placement_strings.h), applied to the original model as each tool applies them: Olive's grouping
// (namespace depth from the first key, Identity nodes removed, Constant nodes copied) and ONNX
// Runtime's substring rule must put every operator on the stage (device) it was placed on.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/placement_strings.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace placement_strings_test {

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, by);) out.push_back(item);
  return out;
}

// Olive's SplitModel assignment of a node name: the split its namespace maps to, or -1.
int oliveSplit(const std::string& assignments, const std::string& node_name) {
  std::map<std::string, int> keys;
  int depth = -1;
  for (const std::string& entry : split(assignments, ';')) {
    const auto parts = split(entry, '=');
    EXPECT_EQ(parts.size(), 2u) << entry;
    if (parts.size() != 2) return -1;
    keys[parts[0]] = std::stoi(parts[1]);
    if (depth < 0) depth = static_cast<int>(split(parts[0], '.').size());
  }
  std::string name = node_name;
  for (char& c : name) c = c == '/' ? '.' : c;
  name.erase(0, name.find_first_not_of('.'));
  const auto parts = split(name + ".", '.');  // a trailing empty component is not one of Python's
  std::string ns;
  for (int i = 0; i < depth && i < static_cast<int>(parts.size()); ++i) ns += (i ? "." : "") + parts[i];
  auto it = keys.find(ns);
  return it == keys.end() ? -1 : it->second;
}

// ONNX Runtime's substring rule: the devices whose patterns the name contains.
std::vector<std::string> ortDevices(const std::string& settings, const std::string& node_name) {
  std::vector<std::string> out;
  for (std::string rule : split(settings, ';')) {
    rule.erase(0, rule.find_first_not_of(' '));
    const auto open = rule.find('('), close = rule.rfind(')');
    EXPECT_NE(open, std::string::npos);
    EXPECT_NE(close, std::string::npos);
    const std::string device = rule.substr(0, open);
    for (std::string pattern : split(rule.substr(open + 1, close - open - 1), ',')) {
      pattern.erase(0, pattern.find_first_not_of(' '));
      if (node_name.find(pattern) != std::string::npos) {
        out.push_back(device);
        break;
      }
    }
  }
  return out;
}

TEST(PlacementStrings, StagesAlongModulesGiveBothStringsAndTheToolsReproduceThem) {
  auto graph = loadOnnx(dataPath("scale/llama_tiny_light.onnx"));
  ASSERT_TRUE(graph.hasValue()) << graph.status().message();
  PlacementPlan plan;
  plan.devices = {PlannedDevice{"gpu:0", true, 0}, PlannedDevice{"gpu:1", true, 1}, PlannedDevice{"cpu", false, 0}};
  plan.stages = {PlannedStage{2, "cpu0", 1, 1, 0}, PlannedStage{0, "stage1", 1, 1, 0}, PlannedStage{1, "stage2", 1, 1, 0}};
  // Layers 0-1 with the embedding on the CPU, layer 2 on gpu:0, the rest on gpu:1 (model order).
  int stage = 0;
  for (const OnnxNode& node : graph->nodes) {
    if (node.name.rfind("/model/layers.2/", 0) == 0) stage = 1;
    if (node.name.rfind("/model/layers.3/", 0) == 0) stage = 2;
    plan.stage_of_node.push_back(stage);
  }
  const PlacementStrings strings = placementStrings(*graph, plan);
  ASSERT_FALSE(strings.split_assignments.empty()) << strings.split_note;
  ASSERT_FALSE(strings.name_based.empty()) << strings.name_note;
  EXPECT_NE(strings.split_assignments.find("model.layers.2=1"), std::string::npos) << strings.split_assignments;
  int checked = 0;
  for (std::size_t n = 0; n < graph->nodes.size(); ++n) {
    const OnnxNode& node = graph->nodes[n];
    if (node.op_type == "Identity") continue;
    SCOPED_TRACE(node.name);
    EXPECT_EQ(oliveSplit(strings.split_assignments, node.name), plan.stage_of_node[n]);
    const std::string device = plan.devices[plan.stages[plan.stage_of_node[n]].device].name;
    EXPECT_EQ(ortDevices(strings.name_based, node.name), std::vector<std::string>{device});
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

TEST(PlacementStrings, CutsInsideModulesAreSaidSoAndLeftOut) {
  auto graph = loadOnnx(model("resnet50_light.onnx"));
  ASSERT_TRUE(graph.hasValue());
  PlacementPlan plan;
  plan.devices = {PlannedDevice{"gpu:0", true, 0}, PlannedDevice{"gpu:1", true, 1}};
  plan.stages = {PlannedStage{0, "stage0", 1, 1, 0}, PlannedStage{1, "stage1", 1, 1, 0}};
  const int n = static_cast<int>(graph->nodes.size());
  for (int i = 0; i < n; ++i) plan.stage_of_node.push_back(i * 2 < n ? 0 : 1);
  const PlacementStrings strings = placementStrings(*graph, plan);
  EXPECT_TRUE(strings.split_assignments.empty());
  EXPECT_NE(strings.split_note.find("do not follow module boundaries"), std::string::npos) << strings.split_note;
  EXPECT_TRUE(strings.name_based.empty());
  EXPECT_NE(strings.name_note.find("substring matching cannot tell them apart"), std::string::npos)
      << strings.name_note;
}

TEST(PlacementStrings, OliveNamespaces) {
  EXPECT_EQ(oliveNamespace("/model/layers.0/self_attn/MatMul", 3), "model.layers.0");
  EXPECT_EQ(oliveNamespace("/Add", 3), "Add");
  EXPECT_EQ(oliveNamespace("//a..b/c", 3), "a..b");
}

}  // namespace placement_strings_test
}  // namespace placer::testing
