// SliceGraph's search over topological orders (Archer, Fahrbach, Liu, Prabhu, ICML 2024, §3.3, §5.3):
// priorities -> Kahn's algorithm -> order -> optimal slicing, over several kinds of priorities:
//   random:N            N vectors of uniform random priorities;
//   brkga:POP:GENS      a biased random-key genetic algorithm (Gonçalves & Resende 2011) over priority
//                       vectors: POP chromosomes for GENS generations, the best 20% kept (elite), 10%
//                       fresh random (mutants), the rest children of an elite and a non-elite parent
//                       taking each gene from the elite one with probability 0.7; fitness = max-load;
//   mla, mla-weighted   the order of least linear-arrangement cost (unweighted, or weighted by the
//                       transfer costs along each edge), itself found by a small BRKGA (mla:POP:GENS).
// The search starts from given orders (DPL's DFS order), so it never returns worse than them.
//
// Determinism: every random number is drawn from RandomStream(seed, stream) with a stream fixed by
// the phase and the order's index, chromosomes are bred on one thread, and orders are sliced in
// batches: each batch is sliced on all threads against the incumbent of the batch's start, and the
// batch's best (lowest index on ties) replaces the incumbent only after the whole batch. BRKGA's
// children are sliced against the worst elite's fitness of their parents' generation, which leaves
// the next elite unchanged (no pruned child could have entered it). So the result depends on the
// seed and the phases, not on the number of threads or their timing, unless the budget cuts the
// search short.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/budget.h"
#include "core/solve_result.h"
#include "core/status.h"
#include "solvers/limits.h"
#include "solvers/slicegraph/slicer.h"

namespace placer {

struct OrderPhase {
  enum class Kind { Random, Brkga, Mla, MlaWeighted };
  Kind kind = Kind::Random;
  std::int64_t count = 0;  // random orders
  int population = 0, generations = 0;
  std::string text;  // as written, for reports
};

// "random:N", "brkga:POP:GENS", "mla[:POP:GENS]", "mla-weighted[:POP:GENS]", comma-separated.
// InvalidInput naming the item otherwise.
Expected<std::vector<OrderPhase>> parseOrderPhases(std::string_view spec);

// The default mix: MLA orders, then random orders, then BRKGA warm-started from the best so far.
inline constexpr std::string_view kDefaultOrderPhases = "mla-weighted,mla,random:1000,brkga:100:100";

struct OrderSearchOptions {
  std::vector<OrderPhase> phases;
  std::uint64_t seed = 1;
  int threads = 0;  // 0: every core
  // The search stops at the budget's deadline or stop flag with the best order so far, and reports
  // its progress. (The gap is not used.)
  Limits limits;
  // The search ends once the incumbent is at most this (auto's target: a split certified good
  // enough; 0: never).
  double good_enough = 0;
};

struct OrderSearchResult {
  double value = kInfinity;  // the slicer's max-load of the best order (+inf: none feasible)
  std::vector<int> order;    // units
  std::vector<Run> runs;
  std::string origin;       // which order won: "start 0", "random 17", "brkga generation 3", "mla"
  std::int64_t orders = 0;  // orders sliced
  bool cut_short = false;   // the budget ended the search before its phases were done
  double seconds = 0;
};

// Searches orders of `units` through `options.phases`, starting from `starts` (topological orders of
// the units; at least one).
OrderSearchResult searchOrders(const UnitGraph& units, const std::vector<std::vector<int>>& starts,
                               const OrderSearchOptions& options);

}  // namespace placer
