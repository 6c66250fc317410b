// The simulation of pipeline_simulator.h: list scheduling in time order. Every operation (a compute
// step of a stage, or a transfer between two stages) becomes ready when what it waits for is done;
// of the ready ones, the one that can start first starts (ties: the lower stage, then the earlier
// micro-batch), and holds its device, or every link of its route, until it ends.
#include "solvers/mapping/pipeline_simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "core/infinity.h"

namespace placer {

namespace {


struct Op {
  bool transfer = false;
  bool backward = false;
  int stage = 0;   // compute: its stage; transfer: the sending stage
  int micro = 0;
  double seconds = 0;
  std::vector<int> waits;   // ops that must end first
  std::vector<int> links;   // transfer: the route's links
  double end = -1;          // set once scheduled
};

// The order in which stage s runs its computations (micro-batch, backward?).
std::vector<std::pair<int, bool>> stageOrder(int s, int stages, int M, PipelineSchedule schedule) {
  std::vector<std::pair<int, bool>> order;
  if (schedule != PipelineSchedule::OneFOneB) {
    for (int m = 0; m < M; ++m) order.push_back({m, false});
    if (schedule == PipelineSchedule::GPipe) {
      for (int m = M - 1; m >= 0; --m) order.push_back({m, true});
    }
    return order;
  }
  const int warmup = std::min(stages - s - 1, M);
  int forward = 0, backward = 0;
  for (; forward < warmup; ++forward) order.push_back({forward, false});
  while (forward < M) {
    order.push_back({forward++, false});
    order.push_back({backward++, true});
  }
  while (backward < M) order.push_back({backward++, true});
  return order;
}

// The refusals of simulatePipeline (pipeline_simulator.h).
Status checkPipeline(const SimulatedPipeline& p, const Topology& topology, int M, PipelineSchedule schedule) {
  const int S = static_cast<int>(p.device.size());
  const bool training = schedule != PipelineSchedule::Inference;
  if (S < 1 || M < 1) return invalidInput("simulation: needs at least one stage and one micro-batch");
  if (p.forward.size() != static_cast<std::size_t>(S) || (training && p.backward.size() != static_cast<std::size_t>(S)) ||
      p.bytes.size() + 1 < static_cast<std::size_t>(S) || (!p.allreduce.empty() && p.allreduce.size() != static_cast<std::size_t>(S)))
    return invalidInput("simulation: one time per stage, and bytes for every stage but the last");
  if (std::set<int>(p.device.begin(), p.device.end()).size() != p.device.size())
    return invalidInput("simulation: two stages on one device");
  for (int s = 0; s < S; ++s) {
    if (p.device[s] < 0 || p.device[s] >= static_cast<int>(topology.devices.size()))
      return invalidInput("simulation: stage " + std::to_string(s) + " has no device of the machine");
    for (double t : {p.forward[s], training ? p.backward[s] : 0.0, s + 1 < S ? p.bytes[s] : 0.0,
                     p.allreduce.empty() ? 0.0 : p.allreduce[s]}) {
      if (!(t >= 0) || !std::isfinite(t)) return invalidInput("simulation: a negative or non-finite time or size");
    }
  }
  return Status::ok();
}

}  // namespace

Expected<PipelineSchedule> parsePipelineSchedule(const std::string& text) {
  if (text == "inference") return PipelineSchedule::Inference;
  if (text == "gpipe") return PipelineSchedule::GPipe;
  if (text == "1f1b") return PipelineSchedule::OneFOneB;
  return invalidInput("schedule must be inference, gpipe or 1f1b (got \"" + text + "\")");
}

Expected<SimulationResult> simulatePipeline(const SimulatedPipeline& p, const Topology& topology, int M,
                                           PipelineSchedule schedule) {
  if (Status s = checkPipeline(p, topology, M, schedule); !s) return s;
  const int S = static_cast<int>(p.device.size());
  const bool training = schedule != PipelineSchedule::Inference;
  // The operations: compute[s][m][backward?] and the transfers between stages.
  std::vector<Op> ops;
  auto index = [&](int kind, int s, int m) { return (kind * S + s) * M + m; };  // kind 0 F, 1 B, 2 Tf, 3 Tb
  ops.resize(static_cast<std::size_t>(4) * S * M);
  for (int s = 0; s < S; ++s) {
    for (int m = 0; m < M; ++m) {
      Op& f = ops[index(0, s, m)];
      f = Op{false, false, s, m, p.forward[s], {}, {}, -1};
      if (s > 0) f.waits.push_back(index(2, s - 1, m));  // its input arrived
      Op& tf = ops[index(2, s, m)];
      tf = Op{true, false, s, m, 0, {index(0, s, m)}, {}, s + 1 < S ? -1.0 : 0.0};
      if (s + 1 < S) {
        tf.seconds = topology.transferSeconds(p.device[s], p.device[s + 1], p.bytes[s]);
        tf.links = topology.path(p.device[s], p.device[s + 1]);
      }
      Op& b = ops[index(1, s, m)];
      b = Op{false, true, s, m, training ? p.backward[s] : 0, {index(0, s, m)}, {}, training ? -1.0 : 0.0};
      if (s + 1 < S) b.waits.push_back(index(3, s + 1, m));  // the gradient arrived
      Op& tb = ops[index(3, s, m)];
      tb = Op{true, true, s, m, 0, {index(1, s, m)}, {}, training && s > 0 ? -1.0 : 0.0};
      if (training && s > 0) {
        tb.seconds = topology.transferSeconds(p.device[s], p.device[s - 1], p.bytes[s - 1]);
        tb.links = topology.path(p.device[s], p.device[s - 1]);
      }
    }
  }
  // Each device runs its stage's computations in schedule order.
  std::vector<std::vector<int>> order(S);
  for (int s = 0; s < S; ++s) {
    for (const auto& [m, backward] : stageOrder(s, S, M, schedule)) order[s].push_back(index(backward ? 1 : 0, s, m));
  }
  std::vector<std::size_t> next(S, 0);
  std::vector<double> device_free(S, 0.0), link_free(topology.links.size(), 0.0);
  std::vector<int> pending_transfers;
  for (int s = 0; s < S; ++s) {
    for (int m = 0; m < M; ++m) {
      if (ops[index(2, s, m)].end < 0) pending_transfers.push_back(index(2, s, m));
      if (ops[index(3, s, m)].end < 0) pending_transfers.push_back(index(3, s, m));
    }
  }
  SimulationResult out;
  out.busy.assign(S, 0.0);
  auto readyAt = [&](const Op& op) {
    double t = 0;
    for (int w : op.waits) {
      if (ops[w].end < 0) return kInfinity;
      t = std::max(t, ops[w].end);
    }
    return t;
  };
  for (;;) {
    // The candidate that starts first: each device's next computation, and every pending transfer.
    int chosen = -1;
    double start = kInfinity;
    auto consider = [&](int i, double at) {
      const Op& op = ops[i];
      if (at < start || (at == start && chosen >= 0 &&
                         std::tie(op.stage, op.micro, op.backward) < std::tie(ops[chosen].stage, ops[chosen].micro,
                                                                          ops[chosen].backward))) {
        start = at;
        chosen = i;
      }
    };
    for (int s = 0; s < S; ++s) {
      if (next[s] < order[s].size()) consider(order[s][next[s]], std::max(device_free[s], readyAt(ops[order[s][next[s]]])));
    }
    for (int i : pending_transfers) {
      if (ops[i].end >= 0) continue;
      double at = readyAt(ops[i]);
      for (int l : ops[i].links) at = std::max(at, link_free[l]);
      consider(i, at);
    }
    if (chosen < 0 || start == kInfinity) break;
    Op& op = ops[chosen];
    op.end = start + op.seconds;
    if (op.transfer) {
      for (int l : op.links) link_free[l] = op.end;
    } else {
      device_free[op.stage] = op.end;
      out.busy[op.stage] += op.seconds;
      ++next[op.stage];
    }
  }
  for (int s = 0; s < S; ++s) {
    if (next[s] < order[s].size()) return internalError("simulation: a stage's schedule cannot proceed");
  }
  for (const Op& op : ops) out.step_time = std::max(out.step_time, op.end);
  if (training && !p.allreduce.empty()) {
    for (int s = 0; s < S; ++s) out.step_time = std::max(out.step_time, device_free[s] + p.allreduce[s]);
  }
  out.throughput = out.step_time > 0 ? M / out.step_time : kInfinity;
  for (int s = 0; s < S; ++s) out.idle.push_back(out.step_time - out.busy[s]);
  return out;
}

}  // namespace placer
