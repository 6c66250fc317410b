// Pass registry and pass manager (the shape of LLVM's new pass manager and onnx/optimizer's
// registry, without analysis invalidation).
//
// Registration is one explicit function, registerBuiltinPasses(), mapping names to factories; a
// textual pipeline such as "subdivide,colocate,orphans,scc,fold-leaves,partition=dp,certify,expand" is
// parsed against the registry. The manager owns what a run shares (PipelineState: the original
// problem, the vertex mappings the passes return, the budget); it times every pass, records node and
// edge counts before and after, stops at the first error, and with verify_each checks the graph
// invariants after every pass.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass.h"

namespace placer {

using PassFactory = std::function<Expected<std::unique_ptr<Pass>>(std::string_view argument)>;

// Arguments given outside the pipeline text, by pass name, which replace what the pipeline says for
// every pass of that name: {"partition": "ip"} is how --algorithm reaches the partition pass of a
// pipeline written with "partition", "partition=auto" or "partition=dp".
using PassArguments = std::map<std::string, std::string, std::less<>>;

class PassRegistry {
 public:
  void add(std::string name, std::string help, PassFactory factory);
  Expected<std::unique_ptr<Pass>> create(std::string_view name, std::string_view argument) const;
  bool contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }
  // "name: help" lines, for --help.
  std::vector<std::string> describe() const;

 private:
  struct Entry {
    std::string help;
    PassFactory factory;
  };
  std::map<std::string, Entry, std::less<>> entries_;
};

void registerBuiltinPasses(PassRegistry& registry);

// The default pipeline for a solver of the registry (solvers/registry.h) and a goal: the reductions
// the solver's entry names, the partition pass, certify (unless `certify` is false: the nested
// solves that only want a split), expand. Latency solvers see the subdivided graph: on CPUs,
// colocated nodes still run one by one, so contracting them would change the schedule. An unknown
// name gets the DP's reductions (the partition pass then reports it).
std::string defaultPipeline(std::string_view algorithm, Goal goal = Goal::Throughput, bool certify = true);

// The DP's pipeline without a certificate (defaultPipeline("dp", Goal::Throughput, false)).
inline constexpr std::string_view kDefaultPipeline =
    "subdivide,colocate,orphans,scc,fold-leaves,partition=dp,expand";

struct PassRecord {
  std::string name;
  std::size_t nodes_before = 0, nodes_after = 0;
  std::size_t edges_before = 0, edges_after = 0;
  double seconds = 0;
  std::string note;
  bool lossy = false;  // the pass returned a lossy mapping
};

class PassManager {
 public:
  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  // Appends the passes of a comma-separated pipeline ("name" or "name=argument"); a pass named in
  // `arguments` gets that argument instead of the pipeline's.
  Status parsePipeline(const PassRegistry& registry, std::string_view pipeline,
                       const PassArguments& arguments = {});
  // Runs every pass in order; on failure the message is prefixed with the failing pass's name.
  // `state` is the run's (a fresh one for each problem); passes read it, and the partition pass
  // leaves its answer there.
  Status run(Problem& problem, const PassOptions& options, PipelineState& state);
  // The same with a state of its own, for pipelines whose answer the caller does not need (the
  // reductions alone, say).
  Status run(Problem& problem, const PassOptions& options = {}) {
    PipelineState state;
    return run(problem, options, state);
  }
  const std::vector<PassRecord>& log() const { return log_; }

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassRecord> log_;
};

// Runs a pipeline that ends with a placement on the original graph (partition ... expand).
struct PipelineOutcome {
  Problem problem;  // as given
  SolveResult solve;
  std::vector<PassRecord> log;
  bool lossy = false;  // a lossy mapping ran: the solver's bound is the reduced problem's only
};
// `registry` (null: the built-in passes) is where the pipeline's pass names are looked up.
Expected<PipelineOutcome> runPipeline(Problem problem, std::string_view pipeline,
                                      const PassOptions& options = {}, const PassArguments& arguments = {},
                                      const PassRegistry* registry = nullptr);

// Structural invariants of a problem: nets well-formed, every original node in exactly one vertex,
// and (unless cycles_allowed) an acyclic forward graph.
Status checkInvariants(const Problem& problem, bool cycles_allowed);

}  // namespace placer
