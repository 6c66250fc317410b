// Reading, validating and writing device specifications, and the bundled presets.
//
// Validation reports the first problem in a fixed order (JSON syntax, duplicated fields, then the
// top level, accelerators, cpus, link), each message naming the source and the field's JSON path.
// The presets are compiled in as JSON text, identical to cost_model/presets/<name>.json (a test
// checks that the two agree), and go through the same parser as a user's file.
#include "cost_model/device_spec.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "onnx_io/input_file.h"
#include "onnx_io/json_text.h"

namespace placer {

using Json = nlohmann::ordered_json;

namespace {

struct Preset {
  std::string_view name;
  std::string_view json;
};

// Each preset's text is byte for byte the file cost_model/presets/<name>.json.
constexpr Preset kPresets[] = {
    // 8 AMD EPYC 7742 cores (AMD datasheet: 2.25 GHz x 32 FP32 FLOP/cycle, 8 x DDR4-3200; int8 an estimate),
    // no accelerators.
    {"cpu-only-8", R"json({
  "name": "8 CPU cores, no accelerators",
  "comment": "CPU: eight cores of an AMD EPYC 7742 (datasheet: 2.25 GHz base x 32 FP32 FLOP/cycle with two 256-bit FMA pipes = 72 GFLOP/s per core; 8 x DDR4-3200 = 204.8 GB/s per socket, of which one core alone sustains about 20 GB/s, an estimate). Per number format: int8 72 GOPS, the FP32 rate, an estimate: Zen 2 has no VNNI, and an AVX2 int8 GEMM (the usual sequence: vpmaddubsw, vpmaddwd, vpaddd per 32 multiply-adds) issues both multiplies on one FP pipe, 16 int8 multiply-adds per cycle against 16 FP32 FMAs; no fp16 or bf16 arithmetic, so those run at the FP32 rate. No accelerators, hence no link. Overheads: 2 us per operator (an estimate), and 10 us + bytes / 6 GB/s per tensor at a stage boundary, measured with ONNX Runtime 1.30 on the 2-core AMD EPYC (Zen 4) build machine (bench/runtime_balance), used as an estimate for these cores.",
  "accelerators": {"count": 0},
  "cpus": {"count": 8, "peak_flops": 7.2e10, "peak_flops_by_type": {"int8": 7.2e10},
           "memory_bandwidth": 2.0e10, "op_overhead": 2.0e-6, "boundary_overhead": 1.0e-5,
           "boundary_bandwidth": 6.0e9}
}
)json"},
    // NVIDIA V100 SXM2 datasheet (15.7 TFLOP/s FP32, 125 fp16 tensor, 900 GB/s); PCIe 3.0 x16; one Xeon
    // E5-2698 v4 core.
    {"dgx1-8xv100", R"json({
  "name": "DGX-1: 8 x V100-SXM2 16 GB, host link PCIe 3.0 x16, 1 CPU core",
  "comment": "Accelerators: NVIDIA V100 SXM2 16 GB datasheet: 15.7 TFLOP/s FP32, 900 GB/s HBM2. Per number format (matrix operators only, cost_model/README.md): fp16 125 TFLOP/s on the tensor cores (datasheet: Tensor Performance 125 TFLOPS); int8 62.8 TOPS, an estimate: Volta has no int8 tensor cores, and its dp4a instruction does 4 int8 multiply-adds per FP32 lane and cycle, 4 x 15.7 TFLOP/s; no bf16, tf32, fp8 or int4 (Volta), so those run at the FP32 rate. Link to the host: PCIe 3.0 x16 is 15.75 GB/s each way (8 GT/s x 16 lanes x 128b/130b), about 12 GB/s effective for pinned-memory copies; 10 us per transfer (estimate). CPU: one core of the DGX-1's Intel Xeon E5-2698 v4 (datasheet: 2.2 GHz base x 32 FP32 FLOP/cycle with two AVX2 FMA units = 70.4 GFLOP/s; 4 x DDR4-2400 = 76.8 GB/s per socket, of which one core alone sustains about 12 GB/s, an estimate). Per number format: int8 70.4 GOPS, the FP32 rate, an estimate: Broadwell has no VNNI, and an AVX2 int8 GEMM (the usual sequence: vpmaddubsw, vpmaddwd, vpaddd per 32 multiply-adds) issues both multiplies on port 0 only, 16 int8 multiply-adds per cycle against 16 FP32 FMAs (Skylake-class cores issue them on two ports and reach about twice the FP32 rate; VNNI cores about four times); no fp16 or bf16 arithmetic (F16C converts only), so those run at the FP32 rate. Overheads: 5 us per operator on an accelerator (kernel launch and the runtime's dispatch) and 10 us per tensor at a stage boundary besides the link (synchronising with the host), estimates; on the CPU core 2 us per operator (an estimate), and 10 us + bytes / 6 GB/s per boundary tensor, measured with ONNX Runtime 1.30 on the 2-core AMD EPYC (Zen 4) build machine (bench/runtime_balance), used as an estimate for this core.",
  "accelerators": {"count": 8, "memory": 17179869184, "peak_flops": 1.57e13,
                   "peak_flops_by_type": {"fp16": 1.25e14, "int8": 6.28e13},
                   "memory_bandwidth": 9.0e11, "op_overhead": 5.0e-6, "boundary_overhead": 1.0e-5},
  "cpus": {"count": 1, "peak_flops": 7.04e10, "peak_flops_by_type": {"int8": 7.04e10},
           "memory_bandwidth": 1.2e10, "op_overhead": 2.0e-6, "boundary_overhead": 1.0e-5,
           "boundary_bandwidth": 6.0e9},
  "link": {"bandwidth": 1.2e10, "latency": 1.0e-5}
}
)json"},
    // NVIDIA V100 PCIe datasheet (14 TFLOP/s FP32, 112 fp16 tensor, 900 GB/s); PCIe 3.0 x16; one Xeon
    // E5-2698 v4 core.
    {"pcie3-4x16gb", R"json({
  "name": "4 x 16 GB accelerators (V100-PCIe-like) on PCIe 3.0 x16, 1 CPU core",
  "comment": "Accelerators: NVIDIA V100 PCIe 16 GB datasheet: 14 TFLOP/s FP32, 900 GB/s HBM2. Per number format (matrix operators only, cost_model/README.md): fp16 112 TFLOP/s on the tensor cores (datasheet: Tensor Performance 112 TFLOPS); int8 56 TOPS, an estimate: Volta has no int8 tensor cores, and its dp4a instruction does 4 int8 multiply-adds per FP32 lane and cycle, 4 x 14 TFLOP/s; no bf16, tf32, fp8 or int4 (Volta), so those run at the FP32 rate. Link: PCIe 3.0 x16 is 15.75 GB/s each way (8 GT/s x 16 lanes x 128b/130b), about 12 GB/s effective for pinned-memory copies; 10 us per transfer (estimate). CPU: one core of an Intel Xeon E5-2698 v4 (datasheet: 2.2 GHz base x 32 FP32 FLOP/cycle with two AVX2 FMA units = 70.4 GFLOP/s; 4 x DDR4-2400 = 76.8 GB/s per socket, of which one core alone sustains about 12 GB/s, an estimate). Per number format: int8 70.4 GOPS, the FP32 rate, an estimate: Broadwell has no VNNI, and an AVX2 int8 GEMM (the usual sequence: vpmaddubsw, vpmaddwd, vpaddd per 32 multiply-adds) issues both multiplies on port 0 only, 16 int8 multiply-adds per cycle against 16 FP32 FMAs (Skylake-class cores issue them on two ports and reach about twice the FP32 rate; VNNI cores about four times); no fp16 or bf16 arithmetic (F16C converts only), so those run at the FP32 rate. Overheads: 5 us per operator on an accelerator (kernel launch and the runtime's dispatch) and 10 us per tensor at a stage boundary besides the link (synchronising with the host), estimates; on the CPU core 2 us per operator (an estimate), and 10 us + bytes / 6 GB/s per boundary tensor, measured with ONNX Runtime 1.30 on the 2-core AMD EPYC (Zen 4) build machine (bench/runtime_balance), used as an estimate for this core.",
  "accelerators": {"count": 4, "memory": 17179869184, "peak_flops": 1.4e13,
                   "peak_flops_by_type": {"fp16": 1.12e14, "int8": 5.6e13},
                   "memory_bandwidth": 9.0e11, "op_overhead": 5.0e-6, "boundary_overhead": 1.0e-5},
  "cpus": {"count": 1, "peak_flops": 7.04e10, "peak_flops_by_type": {"int8": 7.04e10},
           "memory_bandwidth": 1.2e10, "op_overhead": 2.0e-6, "boundary_overhead": 1.0e-5,
           "boundary_bandwidth": 6.0e9},
  "link": {"bandwidth": 1.2e10, "latency": 1.0e-5}
}
)json"},
    // NVIDIA A100 40GB PCIe datasheet (19.5 TFLOP/s FP32, 156 tf32 ... 1248 int4 tensor, 1,555 GB/s);
    // PCIe 4.0 x16; one EPYC 7742 core.
    {"pcie4-2xa100-40gb", R"json({
  "name": "2 x A100 40 GB PCIe on PCIe 4.0 x16, 1 CPU core",
  "comment": "Accelerators: NVIDIA A100 40 GB PCIe datasheet: 19.5 TFLOP/s FP32, 1,555 GB/s HBM2. Per number format, dense (the datasheet's figures without structured sparsity; NVIDIA A100 datasheet and 'NVIDIA A100 Tensor Core GPU Architecture' whitepaper, Table 1): tf32 156, fp16 312 and bf16 312 TFLOP/s, int8 624 and int4 1248 TOPS on the tensor cores; no fp8 (Ampere), which runs at the FP32 rate. float32 matrix operators run at the tf32 rate, as ONNX Runtime's CUDA provider does by default (use_tf32 = 1); remove the tf32 entry to model use_tf32 = 0. Link: PCIe 4.0 x16 is 31.5 GB/s each way (16 GT/s x 16 lanes x 128b/130b), about 25 GB/s effective for pinned-memory copies; 10 us per transfer (estimate). CPU: one core of an AMD EPYC 7742 (datasheet: 2.25 GHz base x 32 FP32 FLOP/cycle with two 256-bit FMA pipes = 72 GFLOP/s; 8 x DDR4-3200 = 204.8 GB/s per socket, of which one core alone sustains about 20 GB/s, an estimate). Per number format: int8 72 GOPS, the FP32 rate, an estimate: Zen 2 has no VNNI, and an AVX2 int8 GEMM (the usual sequence: vpmaddubsw, vpmaddwd, vpaddd per 32 multiply-adds) issues both multiplies on one FP pipe, 16 int8 multiply-adds per cycle against 16 FP32 FMAs; no fp16 or bf16 arithmetic, so those run at the FP32 rate. Overheads: 5 us per operator on an accelerator (kernel launch and the runtime's dispatch) and 10 us per tensor at a stage boundary besides the link (synchronising with the host), estimates; on the CPU core 2 us per operator (an estimate), and 10 us + bytes / 6 GB/s per boundary tensor, measured with ONNX Runtime 1.30 on the 2-core AMD EPYC (Zen 4) build machine (bench/runtime_balance), used as an estimate for this core.",
  "accelerators": {"count": 2, "memory": 42949672960, "peak_flops": 1.95e13,
                   "peak_flops_by_type": {"tf32": 1.56e14, "fp16": 3.12e14, "bf16": 3.12e14,
                                          "int8": 6.24e14, "int4": 1.248e15},
                   "memory_bandwidth": 1.555e12, "op_overhead": 5.0e-6, "boundary_overhead": 1.0e-5},
  "cpus": {"count": 1, "peak_flops": 7.2e10, "peak_flops_by_type": {"int8": 7.2e10},
           "memory_bandwidth": 2.0e10, "op_overhead": 2.0e-6, "boundary_overhead": 1.0e-5,
           "boundary_bandwidth": 6.0e9},
  "link": {"bandwidth": 2.5e10, "latency": 1.0e-5}
}
)json"},
};

constexpr int kMaxCount = 4096;

// The keys of peak_flops_by_type: every compute type but fp32, whose rate is peak_flops.
const std::vector<std::string_view> kTypedPeakKeys = {"tf32", "fp16", "bf16", "fp8", "int8", "int4"};

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string joined(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// " (did you mean "x"?)" when a known name is within two edits of the given one.
std::string suggestion(std::string_view given, const std::vector<std::string_view>& known) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (std::string_view name : known) {
    if (std::size_t d = editDistance(given, name); d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best.empty() ? "" : " (did you mean \"" + std::string(best) + "\"?)";
}

// Validates one document; `source_` prefixes every message and fields are named by JSON path.
class SpecReader {
 public:
  explicit SpecReader(std::string source) : source_(std::move(source)) {}

  Expected<DeviceSpec> read(const Json& root) const {
    if (!root.is_object())
      return invalidInput(source_ + ": expected a JSON object at the top level (got " + root.type_name() +
                          ")");
    if (Status s = knownFields(root, "", {"name", "comment", "accelerators", "cpus", "link"}); !s) return s;

    DeviceSpec spec;
    spec.name = std::filesystem::path(source_).filename().string();
    if (Status s = optionalString(root, "name", spec.name); !s) return s;
    std::string comment;
    if (Status s = optionalString(root, "comment", comment); !s) return s;

    if (Status s = readAccelerators(root, spec.accelerators); !s) return s;
    if (Status s = readCpus(root, spec.cpus); !s) return s;
    if (Status s = readLink(root, spec.accelerators.count, spec.link); !s) return s;
    if (spec.accelerators.count == 0 && spec.cpus.count == 0)
      return invalidInput(source_ + ": no devices: accelerators.count and cpus.count are both 0");
    return spec;
  }

 private:
  Status readAccelerators(const Json& root, AcceleratorSpec& out) const {
    const Json* section = nullptr;
    if (Status s = findSection(root, "accelerators", true, "", section); !s) return s;
    if (Status s = knownFields(*section, "accelerators",
                               {"count", "memory", "peak_flops", "peak_flops_by_type", "memory_bandwidth",
                                "op_overhead", "boundary_overhead", "calibrated"});
        !s)
      return s;
    if (Status s = count(*section, "accelerators", out.count); !s) return s;
    const std::string why = "accelerators.count is " + std::to_string(out.count);
    const bool needed = out.count > 0;
    if (Status s = figure(*section, "accelerators", "memory", needed, why, out.memory); !s) return s;
    if (Status s = figure(*section, "accelerators", "peak_flops", needed, why, out.peak_flops); !s) return s;
    if (Status s = typedPeaks(*section, "accelerators", out.peak_flops_by_type); !s) return s;
    if (Status s = calibratedRates(*section, "accelerators", out.calibrated); !s) return s;
    if (Status s = figure(*section, "accelerators", "memory_bandwidth", needed, why, out.memory_bandwidth);
        !s)
      return s;
    if (Status s = figure(*section, "accelerators", "op_overhead", false, "", out.op_overhead); !s) return s;
    return figure(*section, "accelerators", "boundary_overhead", false, "", out.boundary_overhead);
  }

  Status readCpus(const Json& root, CpuSpec& out) const {
    const Json* section = nullptr;
    if (Status s = findSection(root, "cpus", true, "", section); !s) return s;
    if (Status s = knownFields(*section, "cpus",
                               {"count", "peak_flops", "peak_flops_by_type", "memory_bandwidth",
                                "op_overhead", "boundary_overhead", "boundary_bandwidth", "calibrated"});
        !s)
      return s;
    if (Status s = count(*section, "cpus", out.count); !s) return s;
    const std::string why = "cpus.count is " + std::to_string(out.count);
    const bool needed = out.count > 0;
    if (Status s = figure(*section, "cpus", "peak_flops", needed, why, out.peak_flops); !s) return s;
    if (Status s = typedPeaks(*section, "cpus", out.peak_flops_by_type); !s) return s;
    if (Status s = calibratedRates(*section, "cpus", out.calibrated); !s) return s;
    if (Status s = figure(*section, "cpus", "memory_bandwidth", needed, why, out.memory_bandwidth); !s)
      return s;
    if (Status s = figure(*section, "cpus", "op_overhead", false, "", out.op_overhead); !s) return s;
    if (Status s = figure(*section, "cpus", "boundary_overhead", false, "", out.boundary_overhead); !s)
      return s;
    return figure(*section, "cpus", "boundary_bandwidth", false, "", out.boundary_bandwidth);
  }

  Status readLink(const Json& root, int accelerators, LinkSpec& out) const {
    const bool needed = accelerators > 0;
    const Json* section = nullptr;
    if (Status s = findSection(root, "link", needed, " (required when accelerators.count > 0)", section); !s)
      return s;
    if (section == nullptr) return Status::ok();
    if (Status s = knownFields(*section, "link", {"bandwidth", "latency"}); !s) return s;
    const std::string why = "accelerators.count is " + std::to_string(accelerators);
    if (Status s = figure(*section, "link", "bandwidth", needed, why, out.bandwidth); !s) return s;
    return figure(*section, "link", "latency", false, "", out.latency);
  }

  // Points `out` at root[key], or leaves it null when the optional section is absent.
  Status findSection(const Json& root, const char* key, bool required, const std::string& why,
                     const Json*& out) const {
    if (required && !root.contains(key)) return invalidInput(source_ + ": " + key + ": missing section" + why);
    return optionalObject(root, key, key, out);
  }

  // Points `out` at parent[key] (named `field` in errors), or leaves it null when absent; present,
  // it must be an object.
  Status optionalObject(const Json& parent, const char* key, const std::string& field, const Json*& out) const {
    out = nullptr;
    auto it = parent.find(key);
    if (it == parent.end()) return Status::ok();
    if (!it->is_object())
      return invalidInput(source_ + ": " + field + " must be an object (got " + it->type_name() + ")");
    out = &*it;
    return Status::ok();
  }

  Status knownFields(const Json& object, const std::string& section,
                     const std::vector<std::string_view>& known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      return invalidInput(source_ + ": " + path(section, key) + ": unknown field" + suggestion(key, known) +
                          "; known fields: " + joined(known));
    }
    return Status::ok();
  }

  Status optionalString(const Json& object, const char* key, std::string& out) const {
    auto it = object.find(key);
    if (it == object.end()) return Status::ok();
    if (!it->is_string())
      return invalidInput(source_ + ": " + key + " must be a string (got " + it->type_name() + ")");
    out = it->get<std::string>();
    return Status::ok();
  }

  // A required integer in 0..kMaxCount, written as such or as a number with no fraction.
  Status count(const Json& section, const std::string& name, int& out) const {
    const std::string field = path(name, "count");
    auto it = section.find("count");
    if (it == section.end()) return invalidInput(source_ + ": " + field + ": missing field");
    if (!it->is_number())
      return invalidInput(source_ + ": " + field + " must be a number (got " + it->type_name() + ")");
    const double value = it->get<double>();
    if (!(value >= 0 && value <= kMaxCount && value == std::floor(value)))
      return invalidInput(source_ + ": " + field + " must be an integer in 0.." + std::to_string(kMaxCount) +
                          " (got " + it->dump() + ")");
    out = static_cast<int>(value);
    return Status::ok();
  }

  // A finite number >= 0; when `needed` it must be present and > 0 (`why` says why), otherwise it
  // defaults to 0.
  Status figure(const Json& section, const std::string& name, const char* key, bool needed,
                const std::string& why, double& out) const {
    const std::string field = path(name, key);
    auto it = section.find(key);
    if (it == section.end()) {
      if (needed) return invalidInput(source_ + ": " + field + ": missing field");
      out = 0;
      return Status::ok();
    }
    if (!it->is_number())
      return invalidInput(source_ + ": " + field + " must be a number (got " + it->type_name() + ")");
    const double value = it->get<double>();
    if (!std::isfinite(value))
      return invalidInput(source_ + ": " + field + " must be finite (got " + it->dump() + ")");
    if (needed && !(value > 0))
      return invalidInput(source_ + ": " + field + " must be positive since " + why + " (got " + it->dump() +
                          ")");
    if (value < 0)
      return invalidInput(source_ + ": " + field + " must not be negative (got " + it->dump() + ")");
    out = value;
    return Status::ok();
  }

  // The optional object of per-format peak rates: known keys other than fp32, each a finite number > 0.
  Status typedPeaks(const Json& section, const std::string& name, PeakFlopsByType& out) const {
    const std::string field = path(name, "peak_flops_by_type");
    const Json* it = nullptr;
    if (Status s = optionalObject(section, "peak_flops_by_type", field, it); !s || it == nullptr) return s;
    if (it->contains("fp32"))
      return invalidInput(source_ + ": " + field + ".fp32: not allowed; the float32 rate is " +
                          path(name, "peak_flops"));
    if (Status s = knownFields(*it, field, kTypedPeakKeys); !s) return s;
    for (const auto& [key, value] : it->items()) {
      if (!value.is_number())
        return invalidInput(source_ + ": " + field + "." + key + " must be a number (got " +
                            value.type_name() + ")");
      const double rate = value.get<double>();
      if (!std::isfinite(rate) || !(rate > 0))
        return invalidInput(source_ + ": " + field + "." + key + " must be a finite number > 0 (got " +
                            value.dump() + ")");
      out[*computeTypeNamed(key)] = rate;
    }
    return Status::ok();
  }

  // The optional object of calibrated rates: "<class>/<type>" -> {"flops", "bandwidth", "overhead",
  // "samples"} (calibration.h), rates finite and > 0, the overhead finite and >= 0.
  Status calibratedRates(const Json& section, const std::string& name, CalibratedRates& out) const {
    const std::string field = path(name, "calibrated");
    const Json* it = nullptr;
    if (Status s = optionalObject(section, "calibrated", field, it); !s || it == nullptr) return s;
    for (const auto& [key, value] : it->items()) {
      const std::string where = field + "[\"" + key + "\"]";
      if (!isRateKey(key)) {
        return invalidInput(source_ + ": " + where +
                            ": not a rate key (\"<class>/<type>\" or \"<op type>/<type>\": class matrix, "
                            "normalization, elementwise, reduction, movement or any; an op type such as Conv; "
                            "type fp32, tf32, fp16, bf16, fp8, int8 or int4)");
      }
      if (!value.is_object()) return invalidInput(source_ + ": " + where + " must be an object");
      if (Status s = knownFields(value, where, {"flops", "bandwidth", "overhead", "samples"}); !s) return s;
      EffectiveRate rate;
      for (auto [member, target, positive] : {std::tuple{"flops", &rate.flops, true},
                                              std::tuple{"bandwidth", &rate.bandwidth, true},
                                              std::tuple{"overhead", &rate.overhead, false}}) {
        auto v = value.find(member);
        if (v == value.end()) return invalidInput(source_ + ": " + where + "." + member + ": missing field");
        const double x = v->is_number() ? v->get<double>() : std::nan("");
        if (!std::isfinite(x) || x < 0 || (positive && x == 0))
          return invalidInput(source_ + ": " + where + "." + member + " must be a finite number " +
                              (positive ? "> 0" : ">= 0") + " (got " + v->dump() + ")");
        *target = x;
      }
      if (auto v = value.find("samples"); v != value.end()) {
        if (!v->is_number_integer() || v->get<long long>() < 0 || v->get<long long>() > 1'000'000'000)
          return invalidInput(source_ + ": " + where + ".samples must be a count (got " + v->dump() + ")");
        rate.samples = static_cast<int>(v->get<long long>());
      }
      out[key] = rate;
    }
    return Status::ok();
  }

  // "<class>/<type>" or "<op type>/<type>" (calibration.h's rateKey).
  static bool isRateKey(const std::string& key) {
    const std::size_t slash = key.find('/');
    if (slash == std::string::npos || !computeTypeNamed(key.substr(slash + 1))) return false;
    const std::string subject = key.substr(0, slash);
    const bool op_type = !subject.empty() && std::isupper(static_cast<unsigned char>(subject[0])) &&
                         std::all_of(subject.begin(), subject.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                         });
    return op_type || parseOpClass(subject).has_value();
  }

  static std::string path(const std::string& section, std::string_view key) {
    return section.empty() ? std::string(key) : section + "." + std::string(key);
  }

  std::string source_;
};

}  // namespace

DeviceSet DeviceSpec::deviceSet() const {
  return DeviceSet{accelerators.count, accelerators.memory, cpus.count};
}

double DeviceSpec::transferSeconds(double bytes) const {
  assert(bytes >= 0 && "a transfer cannot move a negative number of bytes");
  if (bytes <= 0) return link.latency;
  if (link.bandwidth <= 0) return std::numeric_limits<double>::infinity();
  return link.latency + bytes / link.bandwidth;
}

double DeviceSpec::acceleratorBoundarySeconds(double bytes) const {
  return transferSeconds(bytes) + accelerators.boundary_overhead;
}

double DeviceSpec::cpuBoundarySeconds(double bytes) const {
  const double copy = cpus.boundary_bandwidth > 0 ? bytes / cpus.boundary_bandwidth : 0.0;
  return cpus.boundary_overhead + copy;
}

Expected<DeviceSpec> parseDeviceSpec(const std::string& text, const std::string& source_name) {
  auto root = parseJsonRejectingDuplicates<Json>(text, source_name, [](const std::vector<std::string>& keys) {
    std::string dotted;
    for (const std::string& key : keys)
      dotted += (dotted.empty() ? "" : ".") + key;
    return dotted;
  });
  if (!root) return root.status();
  return SpecReader(source_name).read(*root);
}

Expected<DeviceSpec> readDeviceSpec(const std::filesystem::path& path) {
  auto text = readInputFile(path, kMaxTextBytes);
  if (!text) return text.status();
  return parseDeviceSpec(*text, path.string());
}

std::vector<std::string> devicePresetNames() {
  std::vector<std::string> names;
  for (const Preset& preset : kPresets)
    names.emplace_back(preset.name);
  std::sort(names.begin(), names.end());
  return names;
}

Expected<DeviceSpec> devicePreset(std::string_view name) {
  for (const Preset& preset : kPresets) {
    if (preset.name != name) continue;
    auto spec = parseDeviceSpec(std::string(preset.json), "device preset " + std::string(name));
    if (!spec) return internalError("the bundled " + spec.status().message());
    return spec;
  }
  std::vector<std::string_view> known;
  for (const Preset& preset : kPresets)
    known.push_back(preset.name);
  std::sort(known.begin(), known.end());
  return invalidInput("unknown device preset \"" + std::string(name) + "\"" + suggestion(name, known) +
                      "; known presets: " + joined(known));
}

namespace {

// {"peak_flops": ..., "peak_flops_by_type": {...}} of a section, the second only when it has entries.
Json peaksJson(double peak_flops, const PeakFlopsByType& by_type) {
  Json out{{"peak_flops", peak_flops}};
  if (by_type.empty()) return out;
  Json typed = Json::object();
  for (const auto& [type, rate] : by_type)
    typed[std::string(computeTypeName(type))] = rate;
  out["peak_flops_by_type"] = std::move(typed);
  return out;
}

Json ratesJson(const CalibratedRates& rates) {
  Json out = Json::object();
  for (const auto& [key, rate] : rates) {
    out[key] = Json{{"flops", rate.flops}, {"bandwidth", rate.bandwidth}, {"overhead", rate.overhead},
                    {"samples", rate.samples}};
  }
  return out;
}

}  // namespace

Json deviceSpecToJson(const DeviceSpec& spec) {
  Json out;
  out["name"] = spec.name;
  out["accelerators"] = Json{{"count", spec.accelerators.count}, {"memory", spec.accelerators.memory}};
  out["accelerators"].update(peaksJson(spec.accelerators.peak_flops, spec.accelerators.peak_flops_by_type));
  out["accelerators"].update(Json{{"memory_bandwidth", spec.accelerators.memory_bandwidth},
                                  {"op_overhead", spec.accelerators.op_overhead},
                                  {"boundary_overhead", spec.accelerators.boundary_overhead}});
  out["cpus"] = Json{{"count", spec.cpus.count}};
  out["cpus"].update(peaksJson(spec.cpus.peak_flops, spec.cpus.peak_flops_by_type));
  out["cpus"].update(Json{{"memory_bandwidth", spec.cpus.memory_bandwidth},
                          {"op_overhead", spec.cpus.op_overhead},
                          {"boundary_overhead", spec.cpus.boundary_overhead},
                          {"boundary_bandwidth", spec.cpus.boundary_bandwidth}});
  if (!spec.accelerators.calibrated.empty()) out["accelerators"]["calibrated"] = ratesJson(spec.accelerators.calibrated);
  if (!spec.cpus.calibrated.empty()) out["cpus"]["calibrated"] = ratesJson(spec.cpus.calibrated);
  out["link"] = Json{{"bandwidth", spec.link.bandwidth}, {"latency", spec.link.latency}};
  return out;
}

}  // namespace placer
