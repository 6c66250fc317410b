// Roofline operator costs: FLOP and byte counts per ONNX operator, and the roofline time
//   t = max(flops / peak_flops, (bytes_read + bytes_written) / memory_bandwidth)   [seconds].
//
// Every op type maps through one const table (kFormulas) to a formula family and a per-element FLOP
// cost; the families are the formulas of cost_model/README.md (Conv/ConvTranspose/Gemm/MatMul count
// multiply-accumulates, 2 FLOPs each; the rest count a fixed cost per output, input or broadcast
// element). Bytes are elements × element size of every known input (read once, weights included)
// and output (written once), except that views move nothing (unless they write a graph output, which
// ONNX Runtime copies into a buffer of its own), Shape/Size read no data and the
// gathering ops read only the elements they copy. If/Loop/Scan given with their bodies are the work of
// the bodies, recursively (controlFlowWork). Invariant: when a formula cannot be evaluated exactly
// from the shapes given, the result says so (estimated == false) and why (note).
#include "cost_model/roofline.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "core/onnx_domain.h"
#include "cost_model/extended_work.h"
#include "cost_model/sequence_work.h"
#include "cost_model/work_formulas.h"

namespace placer {
namespace {

using work::addMacs;
using work::elementCount;
using work::intAttribute;
using work::knownShape;
using work::markApproximate;
using work::product;

enum class Family {
  Conv,           // 2·MACs + bias, MACs per output element from the weight shape
  ConvTranspose,  // 2·MACs + bias, MACs per input element from the weight shape
  Gemm,           // 2·M·N·K + M·N for C
  MatMul,         // 2·batch·M·N·K, numpy broadcasting of the batch dims
  Pool,           // per_element × output elements × ∏kernel_shape
  GlobalPool,     // per_element × input elements
  PerElement,     // per_element × output elements (shape-preserving, so input 0 stands in)
  LayerNorm,      // (per_element + 1 if bias) × output elements
  Broadcast,      // per_element × output elements (the broadcast of the inputs stands in)
  Variadic,       // (inputs − 1 + per_element) × output elements
  Reduce,         // per_element × input elements
  Resize,         // per_element × output elements
  Move,           // 0 FLOPs; reads its inputs and writes its outputs
  Gather,         // 0 FLOPs; reads only the data elements it copies, plus the index inputs
  ShapeQuery,     // 0 FLOPs; reads only metadata, writes its (tiny) output
  View,           // 0 FLOPs and 0 bytes: the output aliases the input
};

struct OpFormula {
  std::string_view op_type;
  Family family;
  double per_element;  // FLOPs per counted element; its meaning depends on the family
};

// One row per default-domain op type with a formula; README.md justifies each per-element cost.
constexpr OpFormula kFormulas[] = {
    {"Conv", Family::Conv, 0},
    {"ConvTranspose", Family::ConvTranspose, 0},
    {"Gemm", Family::Gemm, 0},
    {"MatMul", Family::MatMul, 0},
    {"MaxPool", Family::Pool, 1},
    {"AveragePool", Family::Pool, 1},
    {"LpPool", Family::Pool, 1},
    {"GlobalAveragePool", Family::GlobalPool, 1},
    {"GlobalMaxPool", Family::GlobalPool, 1},
    {"GlobalLpPool", Family::GlobalPool, 1},
    {"BatchNormalization", Family::PerElement, 2},
    {"InstanceNormalization", Family::PerElement, 8},
    {"GroupNormalization", Family::PerElement, 8},
    {"LayerNormalization", Family::LayerNorm, 7},
    {"Softmax", Family::PerElement, 8},
    {"LogSoftmax", Family::PerElement, 8},
    {"CumSum", Family::PerElement, 1},
    // Unary operators and activations.
    {"Relu", Family::PerElement, 1},
    {"Clip", Family::PerElement, 1},
    {"Neg", Family::PerElement, 1},
    {"Abs", Family::PerElement, 1},
    {"Sign", Family::PerElement, 1},
    {"Floor", Family::PerElement, 1},
    {"Ceil", Family::PerElement, 1},
    {"Round", Family::PerElement, 1},
    {"Not", Family::PerElement, 1},
    {"BitwiseNot", Family::PerElement, 1},
    {"IsNaN", Family::PerElement, 1},
    {"IsInf", Family::PerElement, 1},
    {"Cast", Family::PerElement, 1},
    {"CastLike", Family::PerElement, 1},
    {"Sqrt", Family::PerElement, 1},
    {"Reciprocal", Family::PerElement, 1},
    {"LeakyRelu", Family::PerElement, 2},
    {"HardSigmoid", Family::PerElement, 3},
    {"Softsign", Family::PerElement, 3},
    {"HardSwish", Family::PerElement, 4},
    {"Sigmoid", Family::PerElement, 4},
    {"Tanh", Family::PerElement, 4},
    {"Erf", Family::PerElement, 4},
    {"Exp", Family::PerElement, 4},
    {"Log", Family::PerElement, 4},
    {"Gelu", Family::PerElement, 4},
    {"Sin", Family::PerElement, 4},
    {"Cos", Family::PerElement, 4},
    {"Tan", Family::PerElement, 4},
    {"Asin", Family::PerElement, 4},
    {"Acos", Family::PerElement, 4},
    {"Atan", Family::PerElement, 4},
    {"Sinh", Family::PerElement, 4},
    {"Cosh", Family::PerElement, 4},
    {"Asinh", Family::PerElement, 4},
    {"Acosh", Family::PerElement, 4},
    {"Atanh", Family::PerElement, 4},
    {"Elu", Family::PerElement, 7},
    {"Selu", Family::PerElement, 8},
    {"Softplus", Family::PerElement, 9},
    {"Mish", Family::PerElement, 14},
    {"Celu", Family::PerElement, 8},              // max(0, x) + min(0, α(exp(x/α) − 1))
    {"ThresholdedRelu", Family::PerElement, 1},
    {"Shrink", Family::PerElement, 2},
    {"Hardmax", Family::PerElement, 2},           // a max along the axis, then one compare per element
    {"LpNormalization", Family::PerElement, 4},   // power, sum, root, divide
    {"MeanVarianceNormalization", Family::PerElement, 7},  // as InstanceNormalization
    {"GridSample", Family::PerElement, 14},       // 4 taps (bilinear): 4 MACs and 6 for the coordinates
    {"RoiAlign", Family::PerElement, 40},         // 2 x 2 samples of bilinear interpolation, averaged
    {"RandomNormalLike", Family::PerElement, 4},
    {"RandomUniformLike", Family::PerElement, 4},
    {"Bernoulli", Family::PerElement, 5},
    // Elementwise with broadcasting.
    {"Add", Family::Broadcast, 1},
    {"Sub", Family::Broadcast, 1},
    {"Mul", Family::Broadcast, 1},
    {"Div", Family::Broadcast, 1},
    {"Pow", Family::Broadcast, 1},
    {"Mod", Family::Broadcast, 1},
    {"Equal", Family::Broadcast, 1},
    {"Greater", Family::Broadcast, 1},
    {"GreaterOrEqual", Family::Broadcast, 1},
    {"Less", Family::Broadcast, 1},
    {"LessOrEqual", Family::Broadcast, 1},
    {"And", Family::Broadcast, 1},
    {"Or", Family::Broadcast, 1},
    {"Xor", Family::Broadcast, 1},
    {"BitShift", Family::Broadcast, 1},
    {"BitwiseAnd", Family::Broadcast, 1},
    {"BitwiseOr", Family::Broadcast, 1},
    {"BitwiseXor", Family::Broadcast, 1},
    {"Where", Family::Broadcast, 1},
    {"PRelu", Family::Broadcast, 2},
    {"Sum", Family::Variadic, 0},
    {"Max", Family::Variadic, 0},
    {"Min", Family::Variadic, 0},
    {"Mean", Family::Variadic, 1},
    // Reductions.
    {"ReduceMean", Family::Reduce, 1},
    {"ReduceSum", Family::Reduce, 1},
    {"ReduceMax", Family::Reduce, 1},
    {"ReduceMin", Family::Reduce, 1},
    {"ReduceProd", Family::Reduce, 1},
    {"ReduceLogSum", Family::Reduce, 1},
    {"ReduceL1", Family::Reduce, 2},
    {"ReduceL2", Family::Reduce, 2},
    {"ReduceSumSquare", Family::Reduce, 2},
    {"ReduceLogSumExp", Family::Reduce, 5},
    {"ArgMax", Family::Reduce, 1},
    {"ArgMin", Family::Reduce, 1},
    {"NonZero", Family::Reduce, 1},   // one compare per input element
    {"Compress", Family::Reduce, 1},
    {"Resize", Family::Resize, 1},
    {"Upsample", Family::Resize, 1},
    // Data movement.
    {"Concat", Family::Move, 0},
    {"Split", Family::Move, 0},
    {"Transpose", Family::Move, 0},
    {"Expand", Family::Move, 0},
    {"Tile", Family::Move, 0},
    {"Pad", Family::Move, 0},
    {"Constant", Family::Move, 0},
    {"ConstantOfShape", Family::Move, 0},
    {"DepthToSpace", Family::Move, 0},
    {"SpaceToDepth", Family::Move, 0},
    {"ScatterND", Family::Move, 0},
    {"ScatterElements", Family::Move, 0},
    {"Trilu", Family::Move, 0},
    {"OneHot", Family::Move, 0},
    {"Range", Family::Move, 0},
    {"EyeLike", Family::Move, 0},
    {"ReverseSequence", Family::Move, 0},
    {"MaxUnpool", Family::Move, 0},
    {"Scatter", Family::Move, 0},
    {"Gather", Family::Gather, 0},
    {"GatherElements", Family::Gather, 0},
    {"GatherND", Family::Gather, 0},
    {"Slice", Family::Gather, 0},
    {"Shape", Family::ShapeQuery, 0},
    {"Size", Family::ShapeQuery, 0},
    {"Reshape", Family::View, 0},
    {"Flatten", Family::View, 0},
    {"Squeeze", Family::View, 0},
    {"Unsqueeze", Family::View, 0},
    {"Identity", Family::View, 0},
    {"Dropout", Family::View, 0},
};

const OpFormula* findFormula(const OpShapeInfo& op) {
  if (!isDefaultDomain(op.domain)) return nullptr;
  for (const OpFormula& formula : kFormulas) {
    if (formula.op_type == op.op_type) return &formula;
  }
  return nullptr;
}

// ∏kernel_shape, or nullopt when the attribute is absent.
std::optional<double> kernelVolume(const OpShapeInfo& op) {
  auto it = op.int_attributes.find("kernel_shape");
  if (it == op.int_attributes.end()) return std::nullopt;
  return product(it->second);
}

// The fallback when a formula's inputs are missing: one FLOP per output element.
void onePerOutput(const OpShapeInfo& op, OpWork& work, const std::string& reason) {
  std::optional<double> outputs = elementCount(knownShape(op.outputs, 0));
  if (!outputs) return;  // "output shape unknown" is already noted
  work.flops = *outputs;
  markApproximate(work, op.op_type + ": " + reason + ", counted 1 FLOP per output element");
}

// Y = {N, Cout, o...}, W = {Cout, Cin/group, k...}: MACs = |Y| · (Cin/group) · ∏k = |Y| · ∏W[1:].
void convWork(const OpShapeInfo& op, OpWork& work) {
  const Shape* y = knownShape(op.outputs, 0);
  if (y == nullptr) return;
  std::optional<double> macs_per_output;
  if (const Shape* w = knownShape(op.inputs, 1); w != nullptr && w->size() >= 2) {
    macs_per_output = product(*w, 1);
  } else if (const Shape* x = knownShape(op.inputs, 0); x != nullptr && x->size() >= 2) {
    std::optional<double> kernel = kernelVolume(op);
    std::int64_t group = intAttribute(op, "group", 1);
    if (kernel && group > 0) macs_per_output = static_cast<double>((*x)[1] / group) * *kernel;
    if (macs_per_output) markApproximate(work, "Conv: weight shape unknown, MACs from kernel_shape");
  }
  if (!macs_per_output) return onePerOutput(op, work, "weight shape and kernel_shape unknown");
  addMacs(work, product(*y) * *macs_per_output);
  if (knownShape(op.inputs, 2) != nullptr) work.flops += product(*y);
}

// X = {N, Cin, i...}, W = {Cin, Cout/group, k...}: every input element is multiplied by a
// (Cout/group)·∏k slice of W, so MACs = |X| · ∏W[1:].
void convTransposeWork(const OpShapeInfo& op, OpWork& work) {
  const Shape* x = knownShape(op.inputs, 0);
  const Shape* y = knownShape(op.outputs, 0);
  std::optional<double> macs_per_input;
  if (const Shape* w = knownShape(op.inputs, 1); w != nullptr && w->size() >= 2) {
    macs_per_input = product(*w, 1);
  } else if (y != nullptr && y->size() >= 2) {
    std::optional<double> kernel = kernelVolume(op);
    std::int64_t group = intAttribute(op, "group", 1);
    if (kernel && group > 0) macs_per_input = static_cast<double>((*y)[1] / group) * *kernel;
  }
  if (x == nullptr || !macs_per_input) {
    return onePerOutput(op, work, "input shape, or weight shape and kernel_shape, unknown");
  }
  if (knownShape(op.inputs, 1) == nullptr) {
    markApproximate(work, "ConvTranspose: weight shape unknown, MACs from kernel_shape");
  }
  addMacs(work, product(*x) * *macs_per_input);
  if (y != nullptr && knownShape(op.inputs, 2) != nullptr) work.flops += product(*y);
}

// A' = transA ? Aᵀ : A is M×K, B' is K×N: MACs = M·N·K; C adds one FLOP per output element.
void gemmWork(const OpShapeInfo& op, OpWork& work) {
  bool trans_a = intAttribute(op, "transA", 0) != 0, trans_b = intAttribute(op, "transB", 0) != 0;
  std::optional<double> m, n, k;
  if (const Shape* a = knownShape(op.inputs, 0); a != nullptr && a->size() == 2) {
    m = static_cast<double>((*a)[trans_a ? 1 : 0]);
    k = static_cast<double>((*a)[trans_a ? 0 : 1]);
  }
  if (const Shape* b = knownShape(op.inputs, 1); b != nullptr && b->size() == 2) {
    n = static_cast<double>((*b)[trans_b ? 0 : 1]);
    if (!k) k = static_cast<double>((*b)[trans_b ? 1 : 0]);
  }
  bool from_output = !m || !n;
  if (const Shape* y = knownShape(op.outputs, 0); y != nullptr && y->size() == 2) {
    if (!m) m = static_cast<double>((*y)[0]);
    if (!n) n = static_cast<double>((*y)[1]);
  }
  if (!m || !n || !k) return onePerOutput(op, work, "operand shapes unknown");
  if (from_output) markApproximate(work, "Gemm: an operand shape is unknown, M or N from the output");
  addMacs(work, *m * *n * *k);
  if (knownShape(op.inputs, 2) != nullptr) work.flops += *m * *n;
}

// Numpy matmul: a 1-D A is {1, K}, a 1-D B is {K, 1} (the added dim is dropped from Y, which does
// not change its element count); the batch dims A[:-2] and B[:-2] broadcast. MACs = |batch|·M·N·K.
std::optional<double> matMulMacs(Shape a, Shape b) {
  if (a.empty() || b.empty()) return std::nullopt;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  if (a.back() != b[b.size() - 2]) return std::nullopt;
  std::optional<Shape> batch = broadcastShapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  if (!batch) return std::nullopt;
  double m = static_cast<double>(a[a.size() - 2]), k = static_cast<double>(a.back());
  return product(*batch) * m * static_cast<double>(b.back()) * k;
}

// With both operands known, the numpy rules above; otherwise |Y|·K, K from whichever operand is known.
void matMulWork(const OpShapeInfo& op, OpWork& work) {
  const Shape* a = knownShape(op.inputs, 0);
  const Shape* b = knownShape(op.inputs, 1);
  if (a != nullptr && b != nullptr) {
    if (std::optional<double> macs = matMulMacs(*a, *b)) return addMacs(work, *macs);
    return onePerOutput(op, work, "operand shapes do not broadcast");
  }
  std::optional<double> k;
  if (a != nullptr && !a->empty()) k = static_cast<double>(a->back());
  if (b != nullptr && !b->empty()) k = static_cast<double>((*b)[b->size() == 1 ? 0 : b->size() - 2]);
  std::optional<double> outputs = elementCount(knownShape(op.outputs, 0));
  if (!k || !outputs) return onePerOutput(op, work, "operand shapes unknown");
  markApproximate(work, "MatMul: an operand shape is unknown, MACs = output elements × K");
  addMacs(work, *outputs * *k);
}

void poolWork(const OpShapeInfo& op, double per_element, OpWork& work) {
  std::optional<double> outputs = elementCount(knownShape(op.outputs, 0));
  if (!outputs) return;
  std::optional<double> kernel = kernelVolume(op);
  if (!kernel) return onePerOutput(op, work, "no kernel_shape");
  work.flops = per_element * *outputs * *kernel;
}

// Ops whose FLOPs scale with the input (reductions, global pooling).
void perInputWork(const OpShapeInfo& op, double per_element, OpWork& work) {
  std::optional<double> inputs = elementCount(knownShape(op.inputs, 0));
  if (!inputs) return onePerOutput(op, work, "input shape unknown");
  work.flops = per_element * *inputs;
}

// Shape-preserving ops: the output has the shape of input 0, which stands in when it is unknown.
void perElementWork(const OpShapeInfo& op, double per_element, OpWork& work) {
  std::optional<double> elements = elementCount(knownShape(op.outputs, 0));
  if (!elements) elements = elementCount(knownShape(op.inputs, 0));
  if (elements) work.flops = per_element * *elements;
}

// Elementwise ops: the output is the broadcast of all inputs, which stands in when it is unknown.
std::optional<double> broadcastElements(const OpShapeInfo& op) {
  if (std::optional<double> outputs = elementCount(knownShape(op.outputs, 0))) return outputs;
  if (op.inputs.empty()) return std::nullopt;
  Shape shape;
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    const Shape* input = knownShape(op.inputs, i);
    if (input == nullptr) return std::nullopt;
    std::optional<Shape> next = broadcastShapes(shape, *input);
    if (!next) return std::nullopt;
    shape = std::move(*next);
  }
  return product(shape);
}

void broadcastWork(const OpShapeInfo& op, double per_element, OpWork& work) {
  if (std::optional<double> elements = broadcastElements(op)) work.flops = per_element * *elements;
}

// Sum/Max/Min of n inputs take n − 1 binary steps per output element; Mean adds the divide.
void variadicWork(const OpShapeInfo& op, double extra_per_element, OpWork& work) {
  double steps = op.inputs.empty() ? 0 : static_cast<double>(op.inputs.size() - 1);
  broadcastWork(op, steps + extra_per_element, work);
}

double tensorBytes(const std::vector<std::optional<Shape>>& tensors, const std::vector<double>& element_bytes,
                   std::size_t index, const char* kind, OpWork& work) {
  const Shape* shape = knownShape(tensors, index);
  if (shape == nullptr) return 0;
  if (index >= element_bytes.size()) {
    markApproximate(work, std::string("element size of ") + kind + " " + std::to_string(index) + " unknown");
    return 0;
  }
  return product(*shape) * element_bytes[index];
}

void countBytes(const OpShapeInfo& op, Family family, OpWork& work) {
  if (family == Family::View && !op.view_copies) return;
  for (std::size_t i = 0; i < op.outputs.size(); ++i) {
    work.bytes_written += tensorBytes(op.outputs, op.output_element_bytes, i, "output", work);
  }
  if (family == Family::ShapeQuery) return;
  std::size_t first_input = 0;
  if (family == Family::Gather) {
    // Gather/Slice touch only the data elements they copy: as many as the output has.
    std::optional<double> outputs = elementCount(knownShape(op.outputs, 0));
    if (outputs && !op.input_element_bytes.empty()) {
      work.bytes_read += *outputs * op.input_element_bytes[0];
      first_input = 1;
    }
  }
  for (std::size_t i = first_input; i < op.inputs.size(); ++i) {
    work.bytes_read += tensorBytes(op.inputs, op.input_element_bytes, i, "input", work);
  }
}

bool isControlFlow(const OpShapeInfo& op) {
  const bool default_domain = isDefaultDomain(op.domain);
  return default_domain && !op.subgraphs.empty() &&
         (op.op_type == "If" || op.op_type == "Loop" || op.op_type == "Scan");
}

// The "; "-separated reasons of a note.
std::vector<std::string> noteReasons(const std::string& note) {
  std::vector<std::string> reasons;
  for (std::size_t start = 0; start < note.size();) {
    std::size_t end = note.find("; ", start);
    if (end == std::string::npos) end = note.size();
    reasons.push_back(note.substr(start, end - start));
    start = end + 2;
  }
  return reasons;
}

// Marks `into` approximate with each reason of `from`, prefixed, once.
void mergeNotes(const OpWork& from, const std::string& prefix, OpWork& into) {
  if (from.estimated) return;
  into.estimated = false;
  const std::vector<std::string> known = noteReasons(into.note);
  for (const std::string& reason : noteReasons(from.note)) {
    if (std::find(known.begin(), known.end(), prefix + reason) == known.end()) {
      markApproximate(into, prefix + reason);
    }
  }
}

// One body graph: the sum of its operators' work; their fallback notes are kept, once each, prefixed
// with the attribute they come from.
OpWork bodyWork(const SubgraphShapeInfo& body) {
  OpWork total;
  for (const OpShapeInfo& node : body.nodes) {
    const OpWork work = estimateWork(node);
    total.flops += work.flops;
    total.macs += work.macs;
    total.bytes_read += work.bytes_read;
    total.bytes_written += work.bytes_written;
    mergeNotes(work, body.attribute + ": ", total);
  }
  return total;
}

// If runs one branch: the costlier one, taken as max FLOPs and the bytes of the branch that moves
// more. On every device that is exactly the slower branch's roofline time, since
// max(max_b f_b / P, max_b m_b / B) = max_b max(f_b / P, m_b / B). Loop and Scan run their body
// body_runs times. The node's own inputs and outputs are not counted again: the body's operators
// read and write them.
OpWork controlFlowWork(const OpShapeInfo& op) {
  OpWork work;
  if (op.op_type == "If") {
    double most_bytes = -1;
    for (const SubgraphShapeInfo& branch : op.subgraphs) {
      const OpWork b = bodyWork(branch);
      work.flops = std::max(work.flops, b.flops);
      work.macs = std::max(work.macs, b.macs);
      if (b.bytes_read + b.bytes_written > most_bytes) {
        most_bytes = b.bytes_read + b.bytes_written;
        work.bytes_read = b.bytes_read;
        work.bytes_written = b.bytes_written;
      }
      mergeNotes(b, "", work);
    }
    return work;
  }
  for (const SubgraphShapeInfo& body : op.subgraphs) {
    const OpWork b = bodyWork(body);
    work.flops += b.flops;
    work.macs += b.macs;
    work.bytes_read += b.bytes_read;
    work.bytes_written += b.bytes_written;
    mergeNotes(b, "", work);
  }
  if (op.body_runs) {
    const double runs = *op.body_runs;
    work.flops *= runs;
    work.macs *= runs;
    work.bytes_read *= runs;
    work.bytes_written *= runs;
  } else {
    markApproximate(work, op.op_type + ": " + (op.op_type == "Loop" ? "trip count" : "scan length") +
                              " unknown, body counted once");
  }
  return work;
}

}  // namespace

OpWork estimateWork(const OpShapeInfo& op) {
  if (isControlFlow(op)) return controlFlowWork(op);
  if (std::optional<OpWork> work = extendedWork(op)) return *work;
  if (std::optional<OpWork> work = sequenceWork(op)) return *work;
  OpWork work;
  const OpFormula* formula = findFormula(op);
  Family family = formula != nullptr ? formula->family : Family::Move;
  countBytes(op, family, work);
  if (family != Family::View && knownShape(op.outputs, 0) == nullptr) {
    markApproximate(work, "output shape unknown");
  }
  if (formula == nullptr) {
    work.flops = elementCount(knownShape(op.outputs, 0)).value_or(0);
    bool default_domain = isDefaultDomain(op.domain);
    markApproximate(work,
                    "no formula for " + op.op_type + (default_domain ? "" : " (domain " + op.domain + ")"));
    return work;
  }
  double per_element = formula->per_element;
  switch (family) {
    case Family::Conv:
      convWork(op, work);
      break;
    case Family::ConvTranspose:
      convTransposeWork(op, work);
      break;
    case Family::Gemm:
      gemmWork(op, work);
      break;
    case Family::MatMul:
      matMulWork(op, work);
      break;
    case Family::Pool:
      poolWork(op, per_element, work);
      break;
    case Family::GlobalPool:
    case Family::Reduce:
      perInputWork(op, per_element, work);
      break;
    case Family::PerElement:
      perElementWork(op, per_element, work);
      break;
    case Family::LayerNorm:
      perElementWork(op, per_element + (knownShape(op.inputs, 2) != nullptr ? 1 : 0), work);
      break;
    case Family::Broadcast:
      broadcastWork(op, per_element, work);
      break;
    case Family::Variadic:
      variadicWork(op, per_element, work);
      break;
    case Family::Resize:
      if (std::optional<double> outputs = elementCount(knownShape(op.outputs, 0))) {
        work.flops = per_element * *outputs;
      }
      break;
    case Family::Move:
    case Family::Gather:
    case Family::ShapeQuery:
    case Family::View:
      break;
  }
  return work;
}

double rooflineSeconds(const OpWork& work, const RooflineDevice& device, ComputeType type) {
  const double peak = device.peakFlops(type);
  if (!(device.peak_flops > 0) || !(peak > 0) || !(device.memory_bandwidth > 0)) {
    return std::numeric_limits<double>::infinity();
  }
  return std::max(work.flops / peak, (work.bytes_read + work.bytes_written) / device.memory_bandwidth);
}

}  // namespace placer
