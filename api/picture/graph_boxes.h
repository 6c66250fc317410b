// The boxes a placement's operator graph is drawn with: one per operator for a small graph; for a
// large one (more than a few hundred operators), operators collapsed into at most `max_boxes` boxes
// that never span two groups (pipeline stages), split by the model's own name scopes
// ("/encoder/layer.0/attention/..." in ONNX exports, "bert.encoder.layer.0..." in the workloads) and,
// where the names have no more scopes, into runs of consecutive operators (topological order).
//
// The rule, greedy: start with one box per group; repeatedly take the largest box not yet final and
// split it by the next level of its members' common scope (or, without one, into two halves of its
// run), as long as the number of boxes stays within max_boxes; a box whose split would not fit is
// final. Every operator is in exactly one box.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/problem.h"

namespace placer::picture {

struct GraphBox {
  int group = 0;                // its operators' stage (or device)
  std::string scope;            // the name scope they share ("encoder/layer.0"), empty if none
  std::vector<Vertex> members;  // in topological order
  bool run = false;             // a run of consecutive operators rather than a whole scope
};

struct GraphBoxes {
  std::vector<GraphBox> boxes;
  std::vector<int> box_of;  // per vertex
  bool collapsed = false;   // some box holds several operators
};

// The scope of an operator name: its components but the last, split on '/' when the name has one,
// else on '.' ("/a/b/MatMul" and "a.b.weight" are both in a, b).
std::vector<std::string> nameScope(const std::string& name);

// One box per operator when the graph has at most `collapse_above` operators, else collapsed as above.
// `group_of` gives every vertex its group.
GraphBoxes graphBoxes(const OpGraph& graph, const std::vector<int>& group_of, std::size_t collapse_above,
                      std::size_t max_boxes);

}  // namespace placer::picture
