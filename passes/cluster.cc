#include "passes/cluster.h"

#include <charconv>
#include <sstream>

#include "solvers/clustering.h"

namespace placer {

Expected<std::unique_ptr<Pass>> makeClusterPass(std::string_view argument) {
  if (argument.empty()) return std::unique_ptr<Pass>(std::make_unique<ClusterPass>());
  int target = 0;
  const char* end = argument.data() + argument.size();
  const auto [last, error] = std::from_chars(argument.data(), end, target);
  if (error != std::errc() || last != end || target <= 0) {
    return unsupported("pass 'cluster' takes a positive number of clusters, cluster=K (got '" +
                       std::string(argument) + "')");
  }
  return std::unique_ptr<Pass>(std::make_unique<ClusterPass>(target));
}

Expected<PassResult> ClusterPass::run(Problem& problem, const PassOptions& options, PipelineState& state) {
  ClusterOptions cluster;
  cluster.target = target_ > 0 ? target_ : options.solver.cluster_target;
  cluster.alpha = options.solver.cluster_alpha;
  cluster.budget = state.budget();
  const std::size_t vertices = boost::num_vertices(problem.graph);
  const int units = countClusterUnits(problem);
  const Clustering clustering = clusterOperators(problem, cluster);

  PassResult result;
  result.changed = static_cast<std::size_t>(clustering.groups) < vertices;
  // Contracting a unit's own vertices (an input the colocate pass has not seen) loses nothing; a
  // merge of two units does.
  result.mapping =
      VertexMapping{{clustering.group_of.begin(), clustering.group_of.end()}, clustering.units == units};
  std::ostringstream note;
  note << units << " -> " << clustering.units << " clusters";
  if (clustering.groups != clustering.units || static_cast<std::size_t>(units) != vertices)
    note << " (" << vertices << " -> " << clustering.groups << " nodes)";
  note << ", alpha " << cluster.alpha;
  result.note = note.str();
  if (result.changed) {
    problem = contractClusters(problem, clustering);
    // No merge closes a cycle between units, but contracting a unit of several forward vertices can
    // (as the colocate pass can).
    result.cycles_possible = !findCycle(problem.graph, /*forward_only=*/true).empty();
  }
  return result;
}

}  // namespace placer
