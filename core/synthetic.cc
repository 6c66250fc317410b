#include "core/synthetic.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

namespace placer {

namespace {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed ^ 0x5DEECE66DA3B1F27ull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  // Box–Muller, one draw per call.
  double normal(double mean, double sd) {
    const double u = 1.0 - uniform(), v = uniform();
    return mean + sd * std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  std::uint64_t state_;
};

using EdgeList = std::vector<std::pair<int, int>>;

// G(n, p) by geometric skipping over the pairs (i < j) in order (Batagelj & Brandes 2005).
EdgeList erdosRenyi(int n, double p, Random& random) {
  EdgeList edges;
  if (p <= 0) return edges;
  const double log_q = std::log(1.0 - std::min(p, 1.0 - 1e-12));
  long long j = 1, i = -1;
  while (j < n) {
    const double r = 1.0 - random.uniform();
    i += 1 + static_cast<long long>(std::floor(std::log(r) / log_q));
    while (i >= j && j < n) {
      i -= j;
      ++j;
    }
    if (j < n) edges.emplace_back(static_cast<int>(i), static_cast<int>(j));
  }
  return edges;
}

EdgeList barabasiAlbert(int n, int m, Random& random) {
  EdgeList edges;
  std::vector<int> ends;  // every edge's two ends: picking from it is picking by degree
  const int seed_nodes = std::min(n, m + 1);
  for (int v = 1; v < seed_nodes; ++v) {
    for (int u = 0; u < v; ++u) {
      edges.emplace_back(u, v);
      ends.push_back(u);
      ends.push_back(v);
    }
  }
  std::vector<int> chosen;
  for (int v = seed_nodes; v < n; ++v) {
    chosen.clear();
    while (static_cast<int>(chosen.size()) < std::min(m, v)) {
      const int u = ends.empty() ? static_cast<int>(random.below(static_cast<std::uint64_t>(v)))
                                 : ends[random.below(ends.size())];
      if (std::find(chosen.begin(), chosen.end(), u) == chosen.end()) chosen.push_back(u);
    }
    for (int u : chosen) {
      edges.emplace_back(u, v);
      ends.push_back(u);
      ends.push_back(v);
    }
  }
  return edges;
}

EdgeList wattsStrogatz(int n, int k, double beta, Random& random) {
  std::set<std::pair<int, int>> present;
  EdgeList edges;
  auto key = [](int a, int b) { return std::make_pair(std::min(a, b), std::max(a, b)); };
  for (int v = 0; v < n; ++v) {
    for (int d = 1; d <= k / 2; ++d) {
      const int w = (v + d) % n;
      if (w != v && present.insert(key(v, w)).second) edges.emplace_back(v, w);
    }
  }
  for (auto& [a, b] : edges) {
    if (random.uniform() >= beta) continue;
    for (int attempt = 0; attempt < 8; ++attempt) {
      const int c = static_cast<int>(random.below(static_cast<std::uint64_t>(n)));
      if (c == a || present.count(key(a, c))) continue;
      present.erase(key(a, b));
      present.insert(key(a, c));
      b = c;
      break;
    }
  }
  return edges;
}

}  // namespace

Expected<RandomGraphModel> parseRandomGraphModel(const std::string& name) {
  if (name == "er" || name == "erdos-renyi") return RandomGraphModel::ErdosRenyi;
  if (name == "ba" || name == "barabasi-albert") return RandomGraphModel::BarabasiAlbert;
  if (name == "ws" || name == "watts-strogatz") return RandomGraphModel::WattsStrogatz;
  return invalidInput("unknown random-graph model '" + name + "' (expected er, ba or ws)");
}

Expected<Problem> makeSyntheticProblem(const SyntheticOptions& options) {
  const int n = options.nodes;
  if (n < 2 || n > 10'000'000) return invalidInput("the number of nodes must be from 2 to 10000000");
  if (!(options.degree > 0) || options.degree > n - 1)
    return invalidInput("the average degree must be above 0 and at most nodes - 1");
  Random random(options.seed);
  EdgeList edges;
  switch (options.model) {
    case RandomGraphModel::ErdosRenyi:
      edges = erdosRenyi(n, options.degree / (n - 1), random);
      break;
    case RandomGraphModel::BarabasiAlbert:
      edges = barabasiAlbert(n, std::max(1, static_cast<int>(std::lround(options.degree / 2))), random);
      break;
    case RandomGraphModel::WattsStrogatz:
      edges = wattsStrogatz(n, std::max(2, static_cast<int>(std::lround(options.degree))), 0.1, random);
      break;
  }
  // Orient along a random permutation (Fisher–Yates), then number the nodes in that order.
  std::vector<int> rank(n);
  for (int i = 0; i < n; ++i)
    rank[i] = i;
  for (int i = n - 1; i > 0; --i)
    std::swap(rank[i], rank[random.below(static_cast<std::uint64_t>(i) + 1)]);
  for (auto& [a, b] : edges) {
    a = rank[a];
    b = rank[b];
    if (a > b) std::swap(a, b);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

  std::vector<double> size(n), inputs(n, 0);
  double total = 0;
  for (double& s : size) {
    s = std::max(0.05, random.normal(1.0, 0.25));
    total += s;
  }
  for (const auto& [a, b] : edges)
    inputs[b] += size[a];
  Problem problem;
  problem.devices = options.devices;
  problem.source = "synthetic";
  for (int v = 0; v < n; ++v) {
    OpNode node;
    node.name = "n" + std::to_string(v);
    node.op_type = "Synthetic";
    node.p_acc = inputs[v] + size[v] + random.uniform() * (2.0 / n) * total;
    node.p_cpu = 10 * node.p_acc;
    node.members = {v};
    addNode(problem.graph, std::move(node));
  }
  for (const auto& [a, b] : edges)
    boost::add_edge(static_cast<Vertex>(a), static_cast<Vertex>(b), OpEdge{0.25 * size[a], false, 0},
                    problem.graph);
  problem.nets = buildNets(problem.graph);
  return problem;
}

}  // namespace placer
