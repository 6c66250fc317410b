// Calibration of a device specification's effective rates to measured operator times (an ONNX
// Runtime profile): what `onnx-placer calibrate` fits and writes (cost_model/README.md,
// "Calibration").
//
// The roofline with datasheet peaks is a bound, not a prediction: a CPU core runs a 3x3 Conv at a
// fraction of its peak FLOP rate and an element-wise Add at a fraction of its memory bandwidth, and
// each operator pays the runtime's dispatch. Calibration fits, per op type, class and compute type,
//   t = overhead + max(flops / flops_rate, bytes / bandwidth)
// to the measured times of the operators of that class, minimising the mean squared log error
// (every operator counts by its relative error, so the many small ones are not drowned by one large
// one) plus the squared log error of the class's total time (so one large one is not outvoted).
// An op type with fewer than kMinSamples measured operators takes its class's fit, and a class with
// fewer the fit of all operators of its compute type ("any").
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cost_model/roofline.h"

namespace placer {

// Operator classes with one effective rate each: matrix (Conv, Gemm, MatMul, attention, their
// quantized and contrib forms), normalization (BatchNorm, LayerNorm, Softmax, ...), elementwise
// (activations, arithmetic, Cast, Where), reduction (pools, reductions), movement (Concat,
// Transpose, Gather, Slice, Pad, Resize, views), and any (all of them: the fallback).
enum class OpClass { Matrix, Normalization, Elementwise, Reduction, Movement, Any };

std::string_view toString(OpClass c);
// "matrix", ... (nullopt for an unknown name).
std::optional<OpClass> parseOpClass(std::string_view name);
OpClass opClass(const OpShapeInfo& op);

// One fitted rate: seconds = overhead + max(flops / flops_rate, bytes / bandwidth).
struct EffectiveRate {
  double flops = 0;      // FLOP/s achieved
  double bandwidth = 0;  // bytes/s achieved
  double overhead = 0;   // seconds per operator
  int samples = 0;       // measured operators it was fitted to
  bool operator==(const EffectiveRate&) const = default;
};

// The type whose rate a device runs an operator of compute type `t` at: `t` when the device has a
// rate for it, int8 for int4 when it has an int8 rate, else fp32 (computeType() says tf32 for float32
// matrix operators, which a device without a tf32 rate runs at its fp32 rate).
ComputeType rateType(ComputeType t, const PeakFlopsByType& peaks);

// "<class>/<compute type>", e.g. "matrix/fp32", and "<op type>/<compute type>", e.g. "Conv/fp32":
// the keys of calibrated rates (class names are lower case, op types start with a capital).
std::string rateKey(OpClass c, ComputeType t);
std::string rateKey(const std::string& op_type, ComputeType t);

// A device kind's calibrated rates by rateKey(); empty when not calibrated.
using CalibratedRates = std::map<std::string, EffectiveRate>;

// The rate for an operator: its op type's, else its class's, else "any" of its compute type, else
// nullptr.
const EffectiveRate* findRate(const CalibratedRates& rates, const std::string& op_type, OpClass c, ComputeType t);

double calibratedSeconds(const OpWork& work, const EffectiveRate& rate);

inline constexpr int kMinSamples = 3;

struct CalibrationSample {
  OpClass op_class = OpClass::Any;
  ComputeType type = ComputeType::FP32;
  double flops = 0, bytes = 0;
  double measured = 0;  // seconds
  std::string op_type;  // empty: fitted by class only
};

// Fits one rate per op type and compute type, and per class and compute type, with at least
// kMinSamples samples, and one "any" rate per compute type, starting from `start` (the datasheet
// figures). Deterministic.
CalibratedRates fitRates(const std::vector<CalibrationSample>& samples, const EffectiveRate& start);

}  // namespace placer
