// Work of the default-domain operators whose cost is a loop over an index the shapes alone do not
// name (cost_model/README.md, "Recurrent, Einsum and TopK"):
//  - LSTM, GRU, RNN: per time step and direction, every gate's input and recurrent products, and the
//    gates' element-wise work per hidden unit;
//  - Einsum: the dense loop nest over every index its equation names;
//  - TopK: a partial sort, log2(k) comparisons per input element;
//  - NonMaxSuppression: per batch and class, a sort of the scores and every pair of boxes compared.
#pragma once

#include <optional>

#include "cost_model/roofline.h"

namespace placer {

// The operator's work, or nullopt when it is none of the above.
std::optional<OpWork> sequenceWork(const OpShapeInfo& op);

}  // namespace placer
