// A placement as the strings other tools split or place a model by, derived from the model's node
// names (issue 29, part 5):
//
// - Olive's SplitModel reads `split_assignments` ("namespace=split;...") from the model's
//   metadata_props. A node's namespace is the first D components of its name, '/' read as '.', a
//   leading separator dropped ("/model/layers.0/attn/MatMul" at D = 3 is "model.layers.0"); D is
//   the number of components of the first key. We write the keys of the smallest D at which every
//   operator's namespace holds operators of one stage only, when that groups them (at most half as
//   many keys as operators): the stages then follow module boundaries. Identity operators, which
//   Olive removes, are left out.
// - ONNX Runtime's session option `session.name_based_layer_assignment`
//   ("device(pattern, ...); ...") places a node on the device of a pattern its name contains. Each
//   namespace becomes the prefix of its nodes' names up to and including the separator after it
//   ("/model/layers.0/"); the string is written only when every operator contains a pattern of its
//   own stage and none of another's.
//
// Where a string cannot be written, its note says why.
#pragma once

#include <string>

#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"

namespace placer {

struct PlacementStrings {
  std::string split_assignments;  // empty when the stages do not follow module boundaries
  std::string split_note;         // why it is empty
  std::string name_based;         // session.name_based_layer_assignment; empty when no patterns fit
  std::string name_note;
};

PlacementStrings placementStrings(const OnnxGraph& graph, const PlacementPlan& plan);

// Olive's namespace of a node name at depth `depth` (see above).
std::string oliveNamespace(const std::string& node_name, int depth);

}  // namespace placer
