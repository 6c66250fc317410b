#include "cost_model/calibration.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace placer {

namespace {

const std::set<std::string_view> kMatrix = {
    "Conv", "ConvTranspose", "Gemm", "MatMul", "FusedMatMul", "MatMulNBits", "QLinearConv", "QLinearMatMul",
    "ConvInteger", "MatMulInteger", "Attention", "MultiHeadAttention", "GroupQueryAttention", "DFT", "Einsum"};
const std::set<std::string_view> kNormalization = {
    "BatchNormalization", "InstanceNormalization", "GroupNormalization", "LayerNormalization",
    "SimplifiedLayerNormalization", "SkipLayerNormalization", "SkipSimplifiedLayerNormalization",
    "EmbedLayerNormalization", "Softmax", "LogSoftmax", "LRN"};
const std::set<std::string_view> kReduction = {
    "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", "ReduceMean",
    "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
    "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin", "TopK", "CumSum"};
const std::set<std::string_view> kMovement = {
    "Concat", "Split", "Transpose", "Expand", "Tile", "Pad", "Gather", "GatherElements", "GatherND", "Slice",
    "ScatterND", "ScatterElements", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "Reshape", "Flatten",
    "Squeeze", "Unsqueeze", "Identity", "Dropout", "Shape", "Size", "Col2Im", "CenterCropPad", "Trilu"};

constexpr OpClass kClasses[] = {OpClass::Matrix, OpClass::Normalization, OpClass::Elementwise,
                                OpClass::Reduction, OpClass::Movement, OpClass::Any};

constexpr double kTotalWeight = 4;

// The mean squared log error of `rate` over the samples, plus kTotalWeight times the squared log
// error of their total:
// the first ranks every operator by its relative error, the second keeps one large operator (a
// language model's vocabulary projection) from being outvoted by many small ones.
double logError(const std::vector<const CalibrationSample*>& samples, const EffectiveRate& rate) {
  double sum = 0, predicted_total = 0, measured_total = 0;
  for (const CalibrationSample* s : samples) {
    const double predicted = rate.overhead + std::max(s->flops / rate.flops, s->bytes / rate.bandwidth);
    const double e = std::log(std::max(predicted, 1e-12) / std::max(s->measured, 1e-12));
    sum += e * e;
    predicted_total += predicted;
    measured_total += s->measured;
  }
  const double total = std::log(std::max(predicted_total, 1e-12) / std::max(measured_total, 1e-12));
  return sum / static_cast<double>(samples.size()) + kTotalWeight * total * total;
}

// Coordinate descent in log space over the three parameters, each step trying a set of factors;
// the overhead may also go to 0.
EffectiveRate fit(const std::vector<const CalibrationSample*>& samples, EffectiveRate start) {
  std::vector<double> measured;
  for (const CalibrationSample* s : samples)
    measured.push_back(s->measured);
  std::sort(measured.begin(), measured.end());
  if (start.overhead <= 0) start.overhead = measured[measured.size() / 4];  // the quick operators' time
  EffectiveRate best = start;
  double best_error = logError(samples, best);
  constexpr double kFactors[] = {1e-2, 0.1, 0.3, 0.5, 0.7, 0.85, 0.95, 1.05, 1.18, 1.4, 2, 3.3, 10};
  for (int round = 0; round < 60; ++round) {
    bool improved = false;
    for (double EffectiveRate::*field : {&EffectiveRate::flops, &EffectiveRate::bandwidth, &EffectiveRate::overhead}) {
      for (double factor : kFactors) {
        EffectiveRate trial = best;
        trial.*field *= factor;
        const double error = logError(samples, trial);
        if (error < best_error - 1e-12) {
          best = trial;
          best_error = error;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  best.samples = static_cast<int>(samples.size());
  return best;
}

}  // namespace

std::string_view toString(OpClass c) {
  switch (c) {
    case OpClass::Matrix: return "matrix";
    case OpClass::Normalization: return "normalization";
    case OpClass::Elementwise: return "elementwise";
    case OpClass::Reduction: return "reduction";
    case OpClass::Movement: return "movement";
    case OpClass::Any: return "any";
  }
  return "any";
}

std::optional<OpClass> parseOpClass(std::string_view name) {
  for (OpClass c : kClasses) {
    if (toString(c) == name) return c;
  }
  return std::nullopt;
}

OpClass opClass(const OpShapeInfo& op) {
  if (kMatrix.count(op.op_type)) return OpClass::Matrix;
  if (kNormalization.count(op.op_type)) return OpClass::Normalization;
  if (kReduction.count(op.op_type)) return OpClass::Reduction;
  if (kMovement.count(op.op_type)) return OpClass::Movement;
  return OpClass::Elementwise;
}

ComputeType rateType(ComputeType t, const PeakFlopsByType& peaks) {
  if (t == ComputeType::FP32 || peaks.count(t)) return t;
  if (t == ComputeType::INT4 && peaks.count(ComputeType::INT8)) return ComputeType::INT8;
  return ComputeType::FP32;
}

std::string rateKey(OpClass c, ComputeType t) {
  return std::string(toString(c)) + "/" + std::string(computeTypeName(t));
}

std::string rateKey(const std::string& op_type, ComputeType t) {
  return op_type + "/" + std::string(computeTypeName(t));
}

const EffectiveRate* findRate(const CalibratedRates& rates, const std::string& op_type, OpClass c, ComputeType t) {
  if (auto it = rates.find(rateKey(op_type, t)); !op_type.empty() && it != rates.end()) return &it->second;
  if (auto it = rates.find(rateKey(c, t)); it != rates.end()) return &it->second;
  if (auto it = rates.find(rateKey(OpClass::Any, t)); it != rates.end()) return &it->second;
  return nullptr;
}

double calibratedSeconds(const OpWork& work, const EffectiveRate& rate) {
  if (rate.flops <= 0 || rate.bandwidth <= 0) return std::numeric_limits<double>::infinity();
  return rate.overhead + std::max(work.flops / rate.flops, (work.bytes_read + work.bytes_written) / rate.bandwidth);
}

CalibratedRates fitRates(const std::vector<CalibrationSample>& samples, const EffectiveRate& start) {
  std::map<std::string, std::vector<const CalibrationSample*>> groups;
  for (const CalibrationSample& s : samples) {
    if (!(s.measured > 0) || !std::isfinite(s.measured)) continue;
    groups[rateKey(s.op_class, s.type)].push_back(&s);
    if (!s.op_type.empty()) groups[rateKey(s.op_type, s.type)].push_back(&s);
    groups[rateKey(OpClass::Any, s.type)].push_back(&s);
  }
  CalibratedRates out;
  for (const auto& [key, members] : groups) {
    if (static_cast<int>(members.size()) < kMinSamples) continue;
    out[key] = fit(members, start);
  }
  return out;
}

}  // namespace placer
