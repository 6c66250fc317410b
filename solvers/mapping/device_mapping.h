// Device mapping (issue 30, Parmesan §5): which physical device runs each pipeline stage (and each
// of its replicas), on a machine whose links differ.
//
// The stages come as a stage graph: per stage its compute time per sample on one replica, its weight
// bytes and the bytes it exchanges with the host (CPU stages beside the pipeline), and the bytes per
// sample each pair of stages exchange. Stage s has R replicas; its
// replica r talks to replica r of the adjacent stages (the r-th lane of the pipeline). A mapping
// puts the S·R stage replicas on distinct devices. A replica's time is
//   point to point (P2P):  compute(s) + Σ over the edges of s of the transfer of their bytes between
//                          its device and the device of the adjacent stage's replica r, + the
//                          transfer of its host bytes between its device and the host;
//   all-reduce (AR):       compute(s) + max over the pairs of its ring (r, r+1 mod R) of the ring
//                          all-reduce's transfer of 2·(R−1)·P(s)/R bytes between them;
// transfers priced by the topology (latency + bytes / bandwidth along the widest path). The mapping
// minimises the largest replica time. Auto picks AR when the all-reduce bytes (Σ P(s)·2(R−1)/R)
// exceed the inter-stage bytes, P2P otherwise (Parmesan's ratio rule).
//
// The search is Parmesan's: a binary search on the target time t between a lower bound and the
// consecutive mapping's time, each step a backtracking assignment of the replicas in stage order to
// free devices (of the stage's kind, when the stages have kinds) that prunes as soon as a replica's time with its neighbours assigned so far exceeds t
// (times only grow as neighbours are assigned). A target met lowers the upper end to the mapping
// found; one proven unmet raises the lower end. It ends with a search for any mapping better than the
// best found: none proves that one optimal. Each feasibility search runs on several threads, one task
// per choice of devices for the first replicas, and answers what the search on one thread would (the
// mapping from the first such choice that has one). The budget's deadline and stop flag end it early with
// the best mapping so far (optimal = false); it is never worse than the consecutive mapping
// (replica r of stage s on device s·R + r).
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "core/budget.h"
#include "core/status.h"
#include "core/topology.h"

namespace placer {

struct StageGraph {
  struct Edge {
    int from = 0, to = 0;  // stages, from != to
    double bytes = 0;      // per sample
  };
  std::vector<double> compute;       // seconds per sample on one replica
  std::vector<double> weight_bytes;  // P(s): what its all-reduce moves
  std::vector<double> host_bytes;    // per sample, to and from the host; empty: none
  std::vector<Edge> edges;
  // On a mixed machine: per stage, the Topology kind its devices must be of (the kind it was
  // placed for); empty: any device.
  std::vector<int> kind;
  int stages() const { return static_cast<int>(compute.size()); }
};

enum class MapCost { PointToPoint, AllReduce, Auto };
// The optimal mapping's search, or the consecutive mapping every pipeline tool uses (the baseline).
enum class MapMethod { Optimal, Consecutive };

struct MappingRequest {
  StageGraph graph;
  int replicas = 1;
  MapCost cost = MapCost::Auto;
  // Threads of the search (0: every core). The mapping, its times and the node count are the same
  // for any number.
  int threads = 0;
};

struct Mapping {
  std::vector<std::vector<int>> device;  // per stage, its replicas' devices (Topology device indices)
  std::vector<double> stage_time;        // per stage, its slowest replica's time
  double max_stage_time = 0;
  MapCost cost = MapCost::PointToPoint;  // the cost used (Auto resolved)
  bool optimal = false;                  // the search finished: no mapping has a smaller max
  long long nodes = 0;                   // search nodes visited
  int tied = 0;                          // mappings of the same largest time ranked (MappingRanking)
};

// "p2p", "allreduce", "auto"; nullopt for anything else.
std::optional<MapCost> parseMapCost(std::string_view text);

// P2P or AR for `request` (Auto resolved by the ratio rule).
MapCost resolveMapCost(const MappingRequest& request);

// The times of `device` (per stage, per replica) under `request`'s cost on `topology`.
Mapping evaluateMapping(const MappingRequest& request, const Topology& topology,
                        std::vector<std::vector<int>> device);

// Replica r of stage s on device s·R + r (with stage kinds: each replica, in order, on the first
// free device of its stage's kind). InvalidInput when the machine has fewer devices (of a kind) than
// replicas to place, or the graph is malformed (an edge out of range or a stage to itself, a
// negative or non-finite time or size, an unknown kind).
Expected<Mapping> consecutiveMapping(const MappingRequest& request, const Topology& topology);

// What breaks ties between mappings of the same largest stage time: `rank` (lower is better; a
// simulated step time, say) of up to `candidates` such mappings, the first the search meets.
struct MappingRanking {
  std::function<double(const Mapping&)> rank;
  int candidates = 32;
};

// The best mapping (above); the same refusals. With `ranking`, once the best largest time is proven,
// the mappings that tie with it are ranked and the best ranked is returned (Mapping::tied says how
// many were ranked; the budget ends the ranking early, keeping the best ranked so far). The search
// starts from `consecutive` (consecutiveMapping's result, which a caller that shows both has
// computed already), or computes it when null.
Expected<Mapping> optimalMapping(const MappingRequest& request, const Topology& topology, const Budget& budget,
                                 const MappingRanking* ranking = nullptr, const Mapping* consecutive = nullptr);

}  // namespace placer
