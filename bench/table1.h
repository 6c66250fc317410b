// The 16 throughput workloads of Tarnawski et al. 2020, Table 1, relative to
// tests/data/workloads/throughput-inputs/, in the table's order.
#pragma once

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

}  // namespace bench
