// Which of a loaded model's shapes and folded values depend on its symbolic input dimensions, so that
// the stage sub-models keep those dimensions symbolic instead of baking in the values it was placed
// at (stage_models.h).
//
// The loader fixes every symbolic input dimension (--dim) before inference and folds the shape
// arithmetic to constants. To learn what depends on a dimension, the model is loaded again with that
// dimension set to other values (twice its value, three times, then one and two more, one less,
// until two loads succeed): a tensor dimension that changes with it is symbolic, a folded value that
// changes (or is no longer folded) is a computation the stages must keep. A dimension the model ties
// to others (total_sequence_length = past + sequence_length) is moved together with each of them in
// turn when moving it alone makes the model inconsistent.
//
// A symbolic dimension is named after what it equals in every load: an input dimension ("seq"), an
// affine function of one ("2*seq", "seq+1", "seq/2"), a sum or a product of two ("past+seq",
// "batch*seq"); otherwise a name of its own ("unk__3", as ONNX names the dimensions it cannot
// relate), shared by the dimensions that took the same values in every load.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "onnx_io/onnx_model.h"

namespace placer {

// One dimension of a tensor: a value, or (param non-empty) a symbolic name.
struct SymbolicDim {
  std::int64_t value = -1;
  std::string param;
};

struct SymbolicShapes {
  // The tensors with a static shape in the loaded graph some of whose dimensions vary, by name.
  std::map<std::string, std::vector<SymbolicDim>> shapes;
  // Folded values (OnnxGraph::folded_values) that vary with an input dimension.
  std::set<std::string> dynamic_values;
  // The input dimensions that were varied, and what could not be varied (a note each).
  std::vector<std::string> varied;
  std::vector<std::string> notes;

  bool empty() const { return shapes.empty() && dynamic_values.empty(); }
};

// Analyses `graph` (loaded from `source` with isolate_shape_inference as given) by loading `source`
// again at other values of each symbolic input dimension. A model without symbolic input dimensions
// is not loaded again.
SymbolicShapes analyzeSymbolicDims(const ModelSource& source, const OnnxGraph& graph,
                                   bool isolate_shape_inference = true);

}  // namespace placer
