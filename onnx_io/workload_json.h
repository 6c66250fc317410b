// The workload JSON format of Tarnawski et al. 2020 (the reference tool's input) and its placement
// output format.
//
// Input: {"maxSizePerFPGA": M, "maxFPGAs": k, "maxCPUs": l,
//         "nodes": [{"id", "cpuLatency", "fpgaLatency", "supportedOnFpga", "size",
//                    "isBackwardNode", "colorClass"?, "name"?}, ...],
//         "edges": [{"sourceId", "destId", "cost", "cpuCost"?}, ...],
//         "sharedWeights": [{"name"?, "size", "nodes": [ids]}, ...]?}; other fields are ignored.
// A shared weight (our extension) is held once by every accelerator that holds one of its nodes; a
// node's "size" is what only it holds. "cpuCost" (our extension, default 0) is what a CPU core pays
// for the edge's tensor at a stage boundary, paid once like "cost".
// An edge's cost is the transfer cost of its source's output; when a node's outgoing edges disagree,
// each edge is its own transfer (App. B). Output: {"maxLoad": x, "fpgas": [{"load", "nodes"}...],
// "cpus": [...]} with original node ids; accelerators listed in pipeline order.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/problem.h"
#include "core/status.h"
#include "core/evaluate.h"
#include "core/latency.h"

namespace placer {

// Parses and validates a workload: every problem names the file and the node or edge at fault.
Expected<Problem> parseWorkload(const std::string& text, const std::string& source_name);
Expected<Problem> readWorkload(const std::filesystem::path& path);

// The placement in the reference tool's output format (devices with their loads and node ids).
nlohmann::ordered_json placementToJson(const Problem& problem, const Placement& placement,
                                       const Evaluation& evaluation);

// A latency split in the same format, with `totalLatency` first (as the reference greedy prints) and,
// per accelerator, its subgraphs in the order they run (start and finish times).
nlohmann::ordered_json latencyPlacementToJson(const Problem& problem, const Placement& placement,
                                              const LatencyEvaluation& evaluation);

// The problem in the workload format, so other tools (and `partition`) can solve it. Node ids are
// vertex indices; every node must have at most one outgoing net (run the subdivide pass first), whose
// cost becomes the cost of each of its edges. Fails when a node has several nets.
Expected<nlohmann::ordered_json> workloadToJson(const Problem& problem);

// Reads a split in the output format (loads ignored) and returns a device per vertex. Nodes the
// split leaves out get the device of their colocation class, as for expert splits of training
// graphs that list forward nodes only; anything else left out is an error.
Expected<std::vector<int>> parseSplit(const std::string& text, const std::string& source_name,
                                      const Problem& problem);
Expected<std::vector<int>> readSplit(const std::filesystem::path& path, const Problem& problem);

// Reads a whole file; the error names the path.
Expected<std::string> readTextFile(const std::filesystem::path& path);

}  // namespace placer
