// `partition` through the facade: a workload (the NeurIPS 2020 JSON format) loaded with the options'
// device overrides and shared-weight mode, solved by the options' pipeline, and the placement output
// the CLI prints (the split with its loads, the certificate and the solver's account).
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "api/options.h"
#include "api/place.h"
#include "core/replicas.h"
#include "passes/pass_manager.h"

namespace placer::api {

// The workload at `path` with options.accelerators/cpus/memory/overlap and options.shared_weights
// applied. A shared-weight mode the workload does not allow (replicate on a training graph) is
// Unsupported; a malformed file is InvalidInput naming it.
Expected<Problem> loadWorkload(const std::filesystem::path& path, const PlaceOptions& options);

struct Partitioned {
  Problem problem;  // as given, objective set (with --replicas R > 1: the replicated problem)
  SolveResult solve;
  std::vector<PassRecord> log;
  nlohmann::ordered_json output;  // what `partition` prints: the split, certificate and "solver"
};

// The all-reduce of a training workload's replicas (core/replicas.h) from the options: the samples per
// step, the seconds of its time unit, and the bandwidth given or, on a topology, its narrowest route
// between two devices (every ring of replicas is at least that fast): `topology` when the caller has
// resolved it, else read from options.topology. Nullopt when one is missing (replicatedProblem then
// says which); an error when the topology cannot be read.
Expected<std::optional<AllReduceCost>> workloadAllReduce(const PlaceOptions& options,
                                                         const DeviceSpec* topology = nullptr);

// Solves a workload's problem with the options' objective, algorithm and pipeline.
Expected<Partitioned> partitionWorkload(Problem problem, const PlaceOptions& options,
                                        const RunControl& control);

// "auto -> slicegraph" when auto chose another solver, else the algorithm's name.
std::string solverName(const std::string& algorithm, const SolveResult& solve);
// The output's "solver" object: the algorithm asked for, the one chosen, the status, how the answer
// was found, and the search's counters.
nlohmann::ordered_json solverJson(const std::string& algorithm, const SolveResult& solve);
// The top-level "status", "bound" and "gap" of a result, and the certificate's fields.
void addCertificate(nlohmann::ordered_json& out, const SolveResult& solve);

}  // namespace placer::api
