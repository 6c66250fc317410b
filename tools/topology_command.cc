#include "tools/topology_command.h"

#include <iostream>

#include "cost_model/topology_generators.h"
#include "onnx_io/json_text.h"
#include "tools/model_commands.h"

namespace placer::cli {

const char* const kTopologyHelp = R"(Usage: onnx-placer topology SHAPE [options]

Writes a device specification in the topology form (named devices, the links between them, the
host; README.md, "Devices") for --topology (or --devices) to read. The device kind and the CPU
cores are those of --devices; the shape gives the devices and the links:

  mesh --dims AxB[xC] --bandwidth BW     a 2-D or 3-D grid, each device linked to its neighbours
  torus --dims AxB[xC] --bandwidth BW    the same with the ends of every axis longer than 2 joined
  cluster --nodes N --gpus G --bandwidth BW --inter-bandwidth BW2
                                         N nodes of G devices, each node's on a switch at BW, the
                                         nodes on one fabric at BW2
  random-block --count D --block B --bandwidth BW --min-bandwidth BW2 [--seed S]
                                         every pair linked: within a block of B at a bandwidth
                                         drawn from [BW/2, BW], across blocks from [BW2, 2*BW2]
  uniform --count D --bandwidth BW --min-bandwidth BW2 [--seed S]
                                         every pair linked at a bandwidth drawn from [BW2, BW]
  PRESET                                 a bundled preset in the topology form, written out
                                         (dgx1-8xv100-nvlink, dgx-h100)

Bandwidths are in bytes/s each way. The same seed gives the same machine on every platform.

Options:
  --latency S             seconds per transfer on every generated link (default 0)
  --seed N                the random shapes' seed (default 0)
  --devices FILE|PRESET   the device kind and CPU cores (default: pcie3-4x16gb)
  -o, --output FILE       write the specification here (atomically) instead of standard output
)";

std::vector<OptionSpec> topologyOptions() {
  return {{"dims", true},   {"nodes", true},          {"gpus", true},          {"devices", true}, {"count", true},
          {"block", true},  {"bandwidth", true},      {"inter-bandwidth", true}, {"min-bandwidth", true},
          {"latency", true}, {"seed", true},          {"output", true},        {"help", false}};
}

namespace {

// The integer or number option `name` into `out` when given; a usage message otherwise.
std::optional<std::string> readOption(const Args& args, const std::string& name, double& out) {
  auto it = args.values.find(name);
  if (it == args.values.end()) return std::nullopt;
  auto value = parseNumber(it->second);
  if (!value) return "--" + name + " must be a number (got '" + it->second + "')";
  out = *value;
  return std::nullopt;
}

std::optional<std::string> readCount(const Args& args, const std::string& name, int& out) {
  auto it = args.values.find(name);
  if (it == args.values.end()) return std::nullopt;
  auto value = parseInteger(it->second);
  if (!value || *value < 0 || *value > 1'000'000) return "--" + name + " must be a count (got '" + it->second + "')";
  out = static_cast<int>(*value);
  return std::nullopt;
}

}  // namespace

int runTopology(const Args& args) {
  if (args.positional.size() != 1) return usageError("topology takes one SHAPE or PRESET", "topology");
  const std::string shape = args.positional.front();
  Expected<DeviceSpec> spec = invalidInput("no specification");
  if (shape == "mesh" || shape == "torus" || shape == "cluster" || shape == "random-block" || shape == "uniform") {
    TopologyRequest request;
    request.shape = shape;
    if (auto it = args.values.find("dims"); it != args.values.end()) {
      auto dims = parseGridDims(it->second);
      if (!dims) return usageError(dims.status().message(), "topology");
      request.dims = *dims;
    } else if (shape == "mesh" || shape == "torus") {
      return usageError(shape + " needs --dims, as 4x4 or 4x4x4", "topology");
    }
    int seed = 0;
    for (auto error : {readCount(args, "nodes", request.nodes), readCount(args, "gpus", request.gpus),
                       readCount(args, "block", request.block), readCount(args, "count", request.devices),
                       readCount(args, "seed", seed), readOption(args, "bandwidth", request.bandwidth),
                       readOption(args, "inter-bandwidth", request.inter_bandwidth),
                       readOption(args, "min-bandwidth", request.min_bandwidth),
                       readOption(args, "latency", request.latency)}) {
      if (error) return usageError(*error, "topology");
    }
    request.seed = static_cast<std::uint64_t>(seed);
    auto base = resolveDevices(args);
    if (!base) return fail(base.status());
    spec = generateTopology(request, *base);
  } else {
    spec = devicePreset(shape);
    if (spec && !spec->topology) {
      return usageError("the preset " + shape + " has no topology; generate one (mesh, torus, cluster, random-block, "
                        "uniform)", "topology");
    }
  }
  if (!spec) return fail(spec.status());
  const std::string text = jsonText(deviceSpecToJson(*spec), 2) + "\n";
  if (Status s = emit(args, text, {}); !s) return fail(s);
  return kOk;
}

}  // namespace placer::cli
