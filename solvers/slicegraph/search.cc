#include "solvers/slicegraph/search.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <sstream>

#include "core/threads.h"
#include "solvers/slicegraph/orders.h"

namespace placer {

namespace {

using Clock = std::chrono::steady_clock;

// Orders sliced per batch against one incumbent: fixed, so that results do not depend on the number
// of threads.
constexpr int kBatch = 32;
constexpr double kEliteFraction = 0.2, kMutantFraction = 0.1, kEliteBias = 0.7;
constexpr int kMlaPopulation = 20, kMlaGenerations = 25;

// Streams of RandomStream per phase: phase p draws from [p << 40, (p + 1) << 40).
std::uint64_t phaseStream(std::size_t phase) {
  return static_cast<std::uint64_t>(phase + 1) << 40;
}

int eliteCount(int population) {
  return std::max(1, static_cast<int>(std::lround(kEliteFraction * population)));
}

Expected<int> positiveInt(std::string_view text, std::string_view item) {
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || value > 100'000'000) value = -1;
    if (value < 0) break;
    value = value * 10 + (c - '0');
  }
  if (text.empty() || value <= 0) {
    return invalidInput("--orders: '" + std::string(item) + "' needs positive whole numbers, not '" +
                        std::string(text) + "'");
  }
  return value;
}

struct Worker {
  explicit Worker(const UnitGraph& units) : slicer(units), kahn(units), priority(units.size()) {}
  Slicer slicer;
  KahnOrderer kahn;
  std::vector<double> priority;
  std::vector<int> position;
};

class Search {
 public:
  Search(const UnitGraph& units, const OrderSearchOptions& options)
      : units_(units), options_(options), threads_(threadCount(options.threads)), start_(Clock::now()) {
    for (int t = 0; t < threads_; ++t)
      workers_.emplace_back(units);
    for (const OrderPhase& phase : options.phases)
      planned_ += plannedOrders(phase);
  }

  // The incumbent's order, or the first start while none is feasible: BRKGA's seed.
  std::vector<int> seedOrder() const { return result_.order.empty() ? first_start_ : result_.order; }

  // Slices a given order and keeps it if it beats the incumbent.
  void offer(const std::vector<int>& order, const std::string& origin) {
    std::vector<Run> runs;
    if (first_start_.empty()) first_start_ = order;
    const double value = workers_[0].slicer.slice(order, result_.value, &runs);
    ++result_.orders;
    if (value < result_.value) adopt(order, value, std::move(runs), origin);
  }

  void run() {
    for (std::size_t p = 0; p < options_.phases.size() && !stopped(); ++p) {
      const OrderPhase& phase = options_.phases[p];
      switch (phase.kind) {
        case OrderPhase::Kind::Random:
          randomPhase(phase, phaseStream(p));
          break;
        case OrderPhase::Kind::Brkga:
          brkgaPhase(phase, phaseStream(p));
          break;
        case OrderPhase::Kind::Mla:
        case OrderPhase::Kind::MlaWeighted:
          mlaPhase(phase, phaseStream(p));
          break;
      }
    }
  }

  OrderSearchResult finish() {
    result_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    return std::move(result_);
  }

 private:
  // The budget cut the search short, or the incumbent is good enough (checked between batches, so
  // the result does not depend on the threads).
  bool stopped() const { return result_.cut_short || result_.value <= options_.good_enough; }

  static std::int64_t plannedOrders(const OrderPhase& phase) {
    switch (phase.kind) {
      case OrderPhase::Kind::Random:
        return phase.count;
      case OrderPhase::Kind::Brkga:
        return phase.population + static_cast<std::int64_t>(phase.generations) *
                                      (phase.population - eliteCount(phase.population));
      default:
        return 1;
    }
  }

  void adopt(const std::vector<int>& order, double value, std::vector<Run> runs, const std::string& origin) {
    result_.value = value;
    result_.order = order;
    result_.runs = std::move(runs);
    result_.origin = origin;
  }

  // Adopts the order of `priority` if it beats the incumbent (sliced again here, on one thread, for
  // its runs).
  void adoptPriorities(const std::vector<double>& priority, const std::string& origin) {
    Worker& w = workers_[0];
    const std::vector<int> order = w.kahn.order(priority);
    std::vector<Run> runs;
    const double value = w.slicer.slice(order, result_.value, &runs);
    if (value < result_.value) adopt(order, value, std::move(runs), origin);
  }

  // Fitness of `count` orders, the i-th made by make(i, priority) on some thread: the slicer's value
  // below `below` (+inf otherwise). NaN for orders the budget left unsliced (and cut_short is set).
  std::vector<double> sliceBatch(int count, const std::function<void(int, std::vector<double>&)>& make,
                                 double below) {
    std::vector<double> values(count, std::nan(""));
    std::atomic<bool> skipped{false};
    parallelFor(threads_, count, [&](int worker, int i) {
      if (options_.limits.budget.exhausted()) {
        skipped = true;
        return;
      }
      Worker& w = workers_[worker];
      make(i, w.priority);
      values[i] = w.slicer.slice(w.kahn.order(w.priority), below);
    });
    for (double v : values)
      result_.orders += !std::isnan(v);
    if (skipped) result_.cut_short = true;
    report();
    return values;
  }

  // The index of the least value (the first on ties), or -1 if none is finite.
  static int bestOf(const std::vector<double>& values) {
    int best = -1;
    for (int i = 0; i < static_cast<int>(values.size()); ++i) {
      if (values[i] < kInfinity && (best < 0 || values[i] < values[best])) best = i;
    }
    return best;
  }

  void randomPhase(const OrderPhase& phase, std::uint64_t stream) {
    for (std::int64_t first = 0; first < phase.count && !stopped(); first += kBatch) {
      const int count = static_cast<int>(std::min<std::int64_t>(kBatch, phase.count - first));
      auto make = [&](int i, std::vector<double>& priority) {
        randomPriorities(options_.seed, stream + static_cast<std::uint64_t>(first + i), priority);
      };
      const std::vector<double> values = sliceBatch(count, make, result_.value);
      if (const int best = bestOf(values); best >= 0) {
        std::vector<double> priority(units_.size());
        make(best, priority);
        adoptPriorities(priority, "random " + std::to_string(first + best));
      }
    }
  }

  // BRKGA over priority vectors with `fitness` (a batch evaluation against a threshold). Returns the
  // final population's best chromosome.
  template <typename Fitness>
  std::vector<double> evolve(int population, int generations, std::uint64_t stream,
                             const std::vector<double>& seed_chromosome, Fitness&& fitness,
                             const std::function<void(const std::vector<double>&, int)>& improved) {
    const int n = units_.size();
    const int elites = eliteCount(population);
    const int mutants =
        std::min(population - elites, static_cast<int>(std::lround(kMutantFraction * population)));
    std::vector<std::vector<double>> pop(population, std::vector<double>(n));
    pop[0] = seed_chromosome;
    for (int i = 1; i < population; ++i)
      randomPriorities(options_.seed, stream + static_cast<std::uint64_t>(i), pop[i]);
    std::vector<double> score = fitness(pop, 0, kInfinity);
    for (double& x : score)
      x = std::isnan(x) ? kInfinity : x;
    if (const int best = bestOf(score); best > 0) improved(pop[best], 0);
    for (int g = 1; g <= generations && !stopped(); ++g) {
      std::vector<int> rank(population);
      std::iota(rank.begin(), rank.end(), 0);
      std::stable_sort(rank.begin(), rank.end(), [&](int a, int b) { return score[a] < score[b]; });
      const double threshold = score[rank[elites - 1]];
      std::vector<std::vector<double>> next(population);
      std::vector<double> next_score(population, kInfinity);
      for (int e = 0; e < elites; ++e) {
        next[e] = pop[rank[e]];
        next_score[e] = score[rank[e]];
      }
      RandomStream random(options_.seed, stream + (static_cast<std::uint64_t>(g) << 20));
      for (int i = elites; i < population; ++i) {
        next[i].resize(n);
        if (i < elites + mutants) {
          for (double& x : next[i])
            x = random.uniform();
          continue;
        }
        const std::vector<double>& elite = pop[rank[random.below(static_cast<std::uint64_t>(elites))]];
        const int others = population - elites;
        const std::vector<double>& other =
            others > 0 ? pop[rank[elites + random.below(static_cast<std::uint64_t>(others))]] : elite;
        for (int k = 0; k < n; ++k)
          next[i][k] = random.uniform() < kEliteBias ? elite[k] : other[k];
      }
      const std::vector<double> fresh = fitness(next, elites, threshold);
      for (int i = elites; i < population; ++i)
        next_score[i] = std::isnan(fresh[i - elites]) ? kInfinity : fresh[i - elites];
      pop.swap(next);
      score.swap(next_score);
      const int best = bestOf(score);
      if (best >= elites) improved(pop[best], g);
    }
    return pop[std::max(0, bestOf(score))];
  }

  void brkgaPhase(const OrderPhase& phase, std::uint64_t stream) {
    auto fitness = [&](const std::vector<std::vector<double>>& pop, int from, double below) {
      return sliceBatch(
          static_cast<int>(pop.size()) - from,
          [&](int i, std::vector<double>& priority) { priority = pop[from + i]; }, below);
    };
    // Generation 0: the incumbent's order seeds the population.
    evolve(phase.population, phase.generations, stream, prioritiesOf(seedOrder()), fitness,
           [&](const std::vector<double>& chromosome, int generation) {
             adoptPriorities(chromosome, "brkga generation " + std::to_string(generation));
           });
  }

  void mlaPhase(const OrderPhase& phase, std::uint64_t stream) {
    const bool weighted = phase.kind == OrderPhase::Kind::MlaWeighted;
    const ArrangementCost cost(units_, weighted);
    auto fitness = [&](const std::vector<std::vector<double>>& pop, int from, double) {
      std::vector<double> values(pop.size() - from, std::nan(""));
      parallelFor(threads_, static_cast<int>(values.size()), [&](int worker, int i) {
        if (options_.limits.budget.exhausted()) return;
        Worker& w = workers_[worker];
        values[i] = cost(w.kahn.order(pop[from + i]), w.position);
      });
      if (std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); }))
        result_.cut_short = true;
      return values;
    };
    const std::vector<double> best =
        evolve(phase.population, phase.generations, stream, prioritiesOf(seedOrder()), fitness,
               [](const std::vector<double>&, int) {});
    if (result_.cut_short) return;
    offer(std::vector<int>(workers_[0].kahn.order(best)), weighted ? "mla-weighted" : "mla");
    report();
  }

  void report() {
    if (!options_.limits.progress) return;
    std::ostringstream detail;
    detail << "orders, best " << result_.value << " (" << result_.origin << ")";
    options_.limits.progress({"slicegraph", result_.orders, planned_, detail.str()});
  }

  const UnitGraph& units_;
  const OrderSearchOptions& options_;
  const int threads_;
  const Clock::time_point start_;
  std::vector<Worker> workers_;
  std::int64_t planned_ = 0;
  std::vector<int> first_start_;
  OrderSearchResult result_;
};

}  // namespace

Expected<std::vector<OrderPhase>> parseOrderPhases(std::string_view spec) {
  std::vector<OrderPhase> phases;
  std::size_t begin = 0;
  while (begin <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', begin), spec.size());
    const std::string_view item = spec.substr(begin, end - begin);
    begin = end + 1;
    std::vector<std::string_view> parts;
    for (std::size_t from = 0; from <= item.size();) {
      const std::size_t to = std::min(item.find(':', from), item.size());
      parts.push_back(item.substr(from, to - from));
      from = to + 1;
    }
    OrderPhase phase;
    phase.text = std::string(item);
    auto number = [&](std::size_t k) { return positiveInt(parts[k], item); };
    if (parts[0] == "random" && parts.size() == 2) {
      auto count = number(1);
      if (!count) return count.status();
      phase.kind = OrderPhase::Kind::Random;
      phase.count = *count;
    } else if ((parts[0] == "brkga" && parts.size() == 3) ||
               ((parts[0] == "mla" || parts[0] == "mla-weighted") &&
                (parts.size() == 1 || parts.size() == 3))) {
      phase.kind = parts[0] == "brkga" ? OrderPhase::Kind::Brkga
                   : parts[0] == "mla" ? OrderPhase::Kind::Mla
                                       : OrderPhase::Kind::MlaWeighted;
      phase.population = kMlaPopulation;
      phase.generations = kMlaGenerations;
      if (parts.size() == 3) {
        auto population = number(1);
        if (!population) return population.status();
        auto generations = number(2);
        if (!generations) return generations.status();
        phase.population = *population;
        phase.generations = *generations;
      }
    } else {
      return invalidInput(
          "--orders: unknown item '" + std::string(item) +
          "' (expected random:N, brkga:POP:GENS, mla or mla-weighted, optionally mla:POP:GENS)");
    }
    phases.push_back(std::move(phase));
  }
  return phases;
}

OrderSearchResult searchOrders(const UnitGraph& units, const std::vector<std::vector<int>>& starts,
                               const OrderSearchOptions& options) {
  Search search(units, options);
  for (std::size_t i = 0; i < starts.size(); ++i)
    search.offer(starts[i], "start " + std::to_string(i));
  search.run();
  return search.finish();
}

}  // namespace placer
