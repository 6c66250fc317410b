// How faithful a model's costs are: per op type, how each operator was costed — by an exact
// formula (roofline.h and extended_work.h), measured (a profile or a cost plugin), or on the
// fallback cost (one FLOP per output element, for an op type without a formula or an operator whose
// shapes are unknown) — how many nodes constant folding turned into constants, and how many
// tensors have no static shape. inspect prints it all; place repeats the one-line summary, and both
// warn, with counts, when anything fell back.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "onnx_io/onnx_model.h"

namespace placer {

struct OpTypeFidelity {
  std::string op_type;
  std::string domain;  // "" for the default domain
  int formula = 0;     // operators costed by an exact formula
  int measured = 0;    // operators whose times came from a profile or a plugin
  int fallback = 0;    // operators on the fallback cost
  int folded = 0;      // nodes of this type constant folding evaluated (not operators)
  std::string fallback_reason;  // the first fallback operator's reason
};

struct CostFidelity {
  std::vector<OpTypeFidelity> op_types;  // by op type, then domain
  int operators = 0, formula = 0, measured = 0, fallback = 0;
  int folded_nodes = 0;           // OnnxGraph::folded_nodes
  int tensors_without_shape = 0;  // read by an operator or a graph output, without a static size

  // "849 operators: 849 by exact formula, 0 measured, 0 on the fallback cost; 3856 nodes folded to
  // constants; 0 tensors without a static shape".
  std::string summary() const;
  // A warning with counts (and the op types) when an operator fell back or a tensor has no shape.
  std::optional<std::string> warning() const;
};

CostFidelity costFidelity(const OnnxGraph& graph, const Annotation& annotation);

nlohmann::ordered_json toJson(const CostFidelity& fidelity);

}  // namespace placer
