// Device specifications: the hardware a placement is computed for, as the cost model needs it.
//
// A DeviceSpec says how many accelerators and CPU cores there are, how fast each computes and moves
// data, how much memory an accelerator holds, and what a transfer over the accelerator <-> host link
// costs. The cost model turns operator FLOPs and bytes into the paper's per-node times p_acc and
// p_cpu and per-tensor transfer costs c_u (Tarnawski et al. 2020, §3); deviceSet() gives the
// solvers' view (k accelerators with memory M each, l CPU cores).
//
// The JSON format (all figures are plain SI units: bytes, FLOP/s, bytes/s, seconds):
//
//   {"name": "4 x 16 GB accelerators on PCIe 3.0 x16, 1 CPU core",
//    "comment": "free text, e.g. where the figures come from",
//    "accelerators": {"count": 4,                    // integer, 0..4096
//                     "memory": 17179869184,         // bytes of device memory, each
//                     "peak_flops": 1.4e13,          // FLOP/s in float32, each
//                     "peak_flops_by_type": {        // optional: other number formats' peak rates
//                         "fp16": 1.12e14,           //   FLOP/s (tensor cores), each
//                         "int8": 5.6e13},           //   OPS, each
//                     "memory_bandwidth": 9.0e11,    // bytes/s to its own memory, each
//                     "op_overhead": 5.0e-6,         // seconds per operator (kernel launch); optional
//                     "boundary_overhead": 1.0e-5},  // seconds per tensor a stage sends or receives,
//                                                    // on top of the link transfer; optional
//    "cpus": {"count": 1,                            // integer, 0..4096: CPU cores
//             "peak_flops": 7.04e10,                 // FLOP/s in float32 per core
//             "peak_flops_by_type": {                // optional, as for accelerators
//                 "int8": 7.04e10},                  //   OPS per core
//             "memory_bandwidth": 1.2e10,            // bytes/s per core
//             "op_overhead": 2.0e-6,                 // seconds per operator (dispatch); optional
//             "boundary_overhead": 1.0e-5,           // seconds per tensor a CPU stage sends or
//                                                    // receives (the runtime's work at a cut); optional
//             "boundary_bandwidth": 6.0e9},          // bytes/s of handing a tensor across a cut (a
//                                                    // copy); optional, 0 or absent = no per-byte cost
//    "link": {"bandwidth": 1.2e10,                   // bytes/s between an accelerator and the host
//             "latency": 1.0e-5}}                    // seconds per transfer (optional, default 0)
//
// The topology form describes the machine device by device (issue 30): kinds of accelerator with
// their figures, named devices of those kinds, optional switches, the links between devices,
// switches and the host (bandwidth each way, latency), and every device's link to the host:
//
//   {"name": "...", "comment": "...",
//    "kinds": {"v100": {"memory": 17179869184, "peak_flops": 1.57e13, "memory_bandwidth": 9.0e11,
//                       "peak_flops_by_type": {...}, "op_overhead": 5e-6, "boundary_overhead": 1e-5}},
//    "devices": [{"name": "gpu0", "kind": "v100"}, ...],
//    "switches": ["nvswitch"],                                              // optional
//    "links": [{"between": ["gpu0", "gpu1"], "bandwidth": 5.0e10, "latency": 1.0e-6}, ...],
//    "host": {"bandwidth": 1.2e10, "latency": 1.0e-5},                      // each device's
//    "cpus": {...as above...}}
//
// Every device must reach every other (core/topology.h prices a transfer along the widest path). A
// spec of this form with devices of one kind is, to the solvers, that kind's figures times the
// device count with the host link as "link", so the results are those of the equivalent
// accelerators/link spec. Devices of several kinds (at most kMaxAcceleratorKinds) make a mixed
// machine: each kind's operators are timed from its own figures, each accelerator holds its kind's
// memory (DeviceSet::kinds), and the kinds the devices use are numbered in the order of "kinds".
//
// peak_flops_by_type gives the rates of the number formats other than float32, which matrix operators
// run at (cost_model/README.md, "Compute types"): keys "tf32", "fp16", "bf16", "fp8" (FLOP/s), "int8"
// and "int4" (operations/s, a multiply-add counting 2 as for FLOPs). A format without a key runs at
// peak_flops (int4 at the int8 rate when only that is given).
//
// The overheads (cost_model/README.md, "Overheads") are what a runtime adds to the roofline: every
// estimated operator time (not a profiled one) costs op_overhead more, and every tensor crossing a
// stage boundary costs each side its boundary figure (an accelerator: the link transfer plus
// boundary_overhead; a CPU core: boundary_overhead plus bytes / boundary_bandwidth). All of them
// default to 0, which is the paper's model.
//
// (JSON has no comments; they are here for the reader.) Rules, each broken one reported with the
// file and the field's path ("d.json: accelerators.memory: missing field"):
//   - "name" (string) is optional and defaults to the file name; "comment" (string) is optional and
//     ignored; any other unknown or duplicated field is an error, so a typo is never ignored.
//   - "accelerators" and "cpus" are required; "link" is required when accelerators.count > 0.
//   - Every figure is a finite number >= 0. When a section's count is 0 its other fields may be
//     left out (they default to 0); when it is > 0 they are required and must be > 0, and so is
//     link.bandwidth when accelerators.count > 0. link.latency may be 0.
//   - Each peak_flops_by_type value is a finite number > 0, under one of the keys above; "fp32" is
//     an error (that rate is peak_flops), and so is any other key.
//   - There must be at least one device.
//
// Bundled presets (devicePreset, and the same files in cost_model/presets/ to copy and edit) give
// real hardware figures; kDefaultDevicePreset is the default.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.h"
#include "core/status.h"
#include "core/topology.h"
#include "cost_model/calibration.h"
#include "cost_model/roofline.h"

namespace placer {

struct AcceleratorSpec {
  int count = 0;
  double memory = 0;                     // bytes, each
  double peak_flops = 0;                 // FLOP/s in float32, each
  double memory_bandwidth = 0;           // bytes/s, each
  double op_overhead = 0;                // seconds per operator
  double boundary_overhead = 0;          // seconds per tensor at a stage boundary, besides the link
  PeakFlopsByType peak_flops_by_type{};  // the other formats' rates, each; absent = peak_flops
  CalibratedRates calibrated{};          // fitted effective rates (calibration.h); empty = datasheet
  bool operator==(const AcceleratorSpec&) const = default;
};

struct CpuSpec {
  int count = 0;                         // cores
  double peak_flops = 0;                 // FLOP/s in float32 per core
  double memory_bandwidth = 0;           // bytes/s per core
  double op_overhead = 0;                // seconds per operator
  double boundary_overhead = 0;          // seconds per tensor at a stage boundary
  double boundary_bandwidth = 0;         // bytes/s of handing a tensor over; 0 = no per-byte cost
  PeakFlopsByType peak_flops_by_type{};  // the other formats' rates per core; absent = peak_flops
  CalibratedRates calibrated{};          // fitted effective rates (calibration.h); empty = datasheet
  bool operator==(const CpuSpec&) const = default;
};

struct LinkSpec {
  double bandwidth = 0;  // accelerator <-> host, bytes/s
  double latency = 0;    // seconds per transfer
  bool operator==(const LinkSpec&) const = default;
};

struct DeviceSpec {
  std::string name;
  AcceleratorSpec accelerators;
  CpuSpec cpus;
  LinkSpec link;
  // The topology form: the machine as named devices of kinds and the links between them (the
  // accelerators above are then the one kind's figures, their count the devices'; link the host's).
  std::optional<Topology> topology;
  std::vector<AcceleratorSpec> kinds;  // per topology->kinds, each's figures (count unused)

  // The topology's kinds its devices use (indices into topology->kinds, ascending); empty without a
  // topology. The solvers' kind k is usedKinds()[k].
  std::vector<int> usedKinds() const;
  // The figures of the solvers' kind k (count: its devices; kind 0's are `accelerators`', with the
  // overrides applied to them). A machine of one kind: `accelerators`.
  AcceleratorSpec kindFigures(int kind) const;
  // The solvers' view: {accelerators.count, accelerators.memory, cpus.count}, and on a mixed machine
  // each used kind with its count and memory (`memory` the largest).
  DeviceSet deviceSet() const;
  // latency + bytes / bandwidth: the paper's c_u for a tensor of that many bytes. A spec without
  // accelerators may have no link (bandwidth 0); then any non-empty transfer costs +infinity.
  double transferSeconds(double bytes) const;
  // What a tensor of that many bytes costs an accelerator stage that sends or receives it: the link
  // transfer and accelerators.boundary_overhead (the paper's c_u when the overheads are 0).
  double acceleratorBoundarySeconds(double bytes) const;
  // What it costs a CPU stage: cpus.boundary_overhead + bytes / cpus.boundary_bandwidth.
  double cpuBoundarySeconds(double bytes) const;

  bool operator==(const DeviceSpec&) const = default;
};

// Parses and validates a spec; source_name prefixes every message and is the default name.
Expected<DeviceSpec> parseDeviceSpec(const std::string& text, const std::string& source_name);
// Reads and parses a spec file; an unreadable file is an IoError naming the path.
Expected<DeviceSpec> readDeviceSpec(const std::filesystem::path& path);

// The bundled presets' names, sorted.
std::vector<std::string> devicePresetNames();
// A bundled preset; an unknown name is InvalidInput listing the known ones.
Expected<DeviceSpec> devicePreset(std::string_view name);
inline constexpr std::string_view kDefaultDevicePreset = "pcie3-4x16gb";
// The most kinds of accelerator one machine may mix (the exact DP's table has a dimension per kind).
inline constexpr std::size_t kMaxAcceleratorKinds = 4;

// The spec in the JSON format above (every field written, peak_flops_by_type when not empty);
// parseDeviceSpec reads it back equal.
nlohmann::ordered_json deviceSpecToJson(const DeviceSpec& spec);

}  // namespace placer
