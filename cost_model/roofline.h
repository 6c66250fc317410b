// Roofline operator costs: how much arithmetic and memory traffic one ONNX operator needs, and how
// long that takes on a device with a given peak FLOP rate and memory bandwidth. These are the
// per-operator times p_acc / p_cpu of Tarnawski et al. 2020, §3 (the paper takes them as given; we
// estimate them with the roofline model of Williams et al. 2009).
//
// estimateWork() is a pure function of shapes and attributes; it never sees ONNX headers (the ONNX
// loader fills OpShapeInfo). Units: flops in floating-point operations (a multiply-accumulate counts
// 2, a bias add 1 per output element), macs in multiply-accumulates, bytes in bytes (elements of a
// tensor × its element size, each input read once and each output written once; views move
// nothing). rooflineSeconds() returns seconds:
//   t = max(flops / peak rate of the op's compute type, (bytes_read + bytes_written) / memory_bandwidth),
// +inf when the device has no compute or no bandwidth. cost_model/README.md lists every formula.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.h"  // Shape: a negative dim means unknown

namespace placer {

struct OpShapeInfo;

// One graph attribute of a control-flow operator (If's then_branch and else_branch, Loop's and Scan's
// body): the operators inside it, each with the shapes inferred there (nested bodies nest).
struct SubgraphShapeInfo {
  std::string attribute;  // "then_branch", "else_branch", "body"
  std::vector<OpShapeInfo> nodes;
};

// One operator as the ONNX loader sees it: op type, shapes after shape inference, element sizes and
// the integer/float attributes the formulas read.
struct OpShapeInfo {
  std::string op_type;                       // ONNX op type, e.g. "Conv"
  std::string domain;                        // "" or "ai.onnx" for the default domain
  std::vector<std::optional<Shape>> inputs;  // nullopt: unknown shape or omitted optional input
  std::vector<std::optional<Shape>> outputs;
  std::vector<double> input_element_bytes, output_element_bytes;    // per tensor, same length as above
  std::vector<int> input_element_types, output_element_types;       // ONNX TensorProto.DataType, 0 unknown
  std::map<std::string, std::vector<std::int64_t>> int_attributes;  // "group" -> {1}, "kernel_shape" -> {3,3}
  std::map<std::string, double> float_attributes;
  std::map<std::string, std::string> string_attributes;  // Einsum's "equation"
  std::map<int, std::vector<std::int64_t>> constant_inputs;  // small constant integer inputs, by position
  std::vector<bool> input_is_weight;  // same length as inputs; weights are read from device memory too
  // A view (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) that copies: its output is a
  // graph output, which ONNX Runtime writes to a buffer of its own, not an alias of the input.
  bool view_copies = false;
  // If/Loop/Scan: the body graphs, whose operators are the node's work; and how many times the body
  // runs per execution (Loop: its constant trip count; Scan: the scan length), when known.
  std::vector<SubgraphShapeInfo> subgraphs;
  std::optional<double> body_runs;
};

struct OpWork {
  double flops = 0;          // floating-point operations (a multiply-accumulate counts 2)
  double macs = 0;           // multiply-accumulates (for matrix ops; 0 otherwise)
  double bytes_read = 0;     // input tensors read once (weights included)
  double bytes_written = 0;  // output tensors written once
  bool estimated = true;     // false when shapes were missing and a fallback was used
  std::string note;          // why, when estimated == false ("; "-separated reasons)
};

// The arithmetic and memory traffic of one operator (formulas in cost_model/README.md). Never fails:
// an op type without a formula or missing shapes give a fallback with estimated == false and a note.
// A control-flow operator with subgraphs is the work of its body: If the costlier branch, Loop and
// Scan the body times body_runs (once, noted, when unknown).
OpWork estimateWork(const OpShapeInfo& op);

// The number format an operator's arithmetic runs in, which picks the device's peak rate for it
// (cost_model/README.md, "Compute types").
enum class ComputeType { FP32, TF32, FP16, BF16, FP8, INT8, INT4 };

// "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4": the keys of peak_flops_by_type in a device
// specification; computeTypeNamed() is the inverse (nullopt for any other name).
std::string_view computeTypeName(ComputeType type);
std::optional<ComputeType> computeTypeNamed(std::string_view name);

// Peak rates per compute type, FLOP/s (OPS for the integer types); FP32 is peak_flops, never a key.
using PeakFlopsByType = std::map<ComputeType, double>;

// The type whose rate `op` runs at. Matrix operators (Conv, ConvTranspose, Gemm, MatMul, their fused
// and integer forms, the attention operators) run in the type of their operands: float32 -> TF32
// (ONNX Runtime's CUDA provider default; a device without a tf32 rate runs it at peak_flops),
// float16 -> FP16, bfloat16 -> BF16, float8 -> FP8, 8-bit integers -> INT8, 4-bit integers on both
// operands -> INT4 (QLinear*, *Integer, QGemm, QAttention, DynamicQuantizeMatMul,
// MatMulIntegerToFloat: INT8, or FP8 on float8 operands); MatMulNBits dequantizes its 4-bit weights
// and multiplies in its activations' type, or INT8 with accuracy_level 4. Every other operator runs
// at FP32, the vector rate.
ComputeType computeType(const OpShapeInfo& op);

struct RooflineDevice {
  double peak_flops = 0;                 // FLOP/s: float32, and every type without an entry below
  double memory_bandwidth = 0;           // bytes/s
  PeakFlopsByType peak_flops_by_type{};  // the other types' rates

  // The rate of `type`: its entry; for INT4 without one the INT8 entry (4-bit operands unpacked to
  // 8 bits); otherwise peak_flops.
  double peakFlops(ComputeType type) const;
};

// max(flops / device.peakFlops(type), (bytes_read + bytes_written) / memory_bandwidth) in seconds;
// +inf if peak_flops, that rate or memory_bandwidth is not positive (the device cannot run the
// operator at all).
double rooflineSeconds(const OpWork& work, const RooflineDevice& device,
                       ComputeType type = ComputeType::FP32);

}  // namespace placer
