// The 16 throughput workloads of Tarnawski et al. 2020, Table 1, relative to
// tests/data/workloads/throughput-inputs/, in the table's order, and the benches' --only selection.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bench {

inline constexpr const char* kTable1[] = {
    "LayerGraphs/bert24_inference.json",       "LayerGraphs/bert24_training.json",
    "LayerGraphs/gnmt_inference.json",         "LayerGraphs/gnmt_training.json",
    "LayerGraphs/resnet50_inference.json",     "LayerGraphs/resnet50_training.json",
    "LayerGraphs/inceptionv3_inference.json",  "LayerGraphs/inceptionv3_training.json",
    "OperatorGraphs/bert_l-3_inference.json",  "OperatorGraphs/bert_l-6_inference.json",
    "OperatorGraphs/bert_l-12_inference.json", "OperatorGraphs/resnet50_inference.json",
    "OperatorGraphs/bert_l-3_training.json",   "OperatorGraphs/bert_l-6_training.json",
    "OperatorGraphs/bert_L-12_training.json",  "OperatorGraphs/resnet50_training.json"};

// Whether a case named `name` is selected by --only: any of `only` is part of its name, or `only` is
// empty.
inline bool selected(const std::vector<std::string>& only, std::string_view name) {
  if (only.empty()) return true;
  for (const std::string& s : only) {
    if (name.find(s) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace bench
