// COIN-OR CBC back end of the MIP layer (solvers/mip.h).
//
// The model goes into an OsiClpSolverInterface (Clp for the LPs) and CBC runs it the way its
// command-line program does (CbcMain0, then CbcMain1 with "-solve"), so the search gets CBC's
// default cut generators (probing, Gomory, knapsack cover, clique, MIR, flow cover, two-step MIR,
// zero-half) and heuristics (rounding, greedy, diving, RINS, feasibility pump, ...). On a subset of
// ip_bench at 30 s, this and a CbcModel given the standard Cgl generators and a few heuristics by
// hand reached the same values and nearly the same bounds (bench/README.md); the command-line way
// overran the time limit less. Two defaults are changed: no integer preprocessing (CglPreProcess),
// which looks at no clock between its passes and at no stop flag (up to 20 s on the latency
// programs), and no presolve of the root LP, during which Clp raises no event (a stop came 2.5 s
// late on op ResNet50's latency program); on a subset at 30 s the values and bounds were the same
// without them, up to the run-to-run variation of CBC's heuristics.
//
// Around the search:
//   - the start's integer values are completed by a Clp LP over the continuous columns (integers
//     fixed); the completed solution becomes CBC's incumbent just before its branch-and-cut (CBC's
//     own name-based MIP start re-solves the LP from scratch, 11 s on a latency program). Whatever
//     CBC does, a feasible start is what the call falls back on: the answer is never worse;
//   - an event handler on the CbcModel (cloned into the model CbcMain1 searches and into the small
//     searches of its heuristics) sees nodes, solutions, heuristic and cut passes: it reports
//     progress from the top-level search and, once the stop flag is set or the call's time is up,
//     tells CBC to stop (returning `stop` and lowering CBC's own time limit to 0, which its root loops
//     check). CBC's heuristics can run for many seconds between events (a dive looks at no clock but
//     its own), so every LP of the search also carries a Clp event handler that stops it at the
//     deadline. Such an LP may make CBC close a node as infeasible: once the deadline has passed,
//     CBC's bound and its claims of optimality or infeasibility are not used (the bound is the last
//     one reported before it);
//   - a model without integer columns is one Clp LP, stopped the same way.
// CBC and Clp print through message handlers; a handler that prints nothing is passed to every one,
// and the log levels are 0, so the library stays silent.
//
// CbcMain1 keeps state in globals (how it reads its arguments, whether it prints, the model its
// signal handler would stop), so calls are serialised by a mutex. The project does not run two
// programs at once today (the DP's and the order search's threads never solve a program), so the
// lock costs nothing there; it only keeps a future caller safe.
#include "core/budget.h"
#include "solvers/mip_backends.h"

#ifdef PLACER_HAVE_CBC

#include <CbcEventHandler.hpp>
#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <ClpEventHandler.hpp>
#include <ClpSimplex.hpp>
#include <CoinMessageHandler.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace placer::mip {

namespace {

using Clock = std::chrono::steady_clock;

bool isSet(const std::atomic<bool>* flag) {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}

// The call's clock and stop flag, shared by the event handlers (and their clones).
struct Deadline {
  Clock::time_point start;
  double time_limit = kUnbounded;
  const std::atomic<bool>* stop = nullptr;
  bool interrupted() const { return isSet(stop); }
  bool reached() const { return interrupted() || secondsSince(start) >= time_limit; }
};

// Prints nothing, whatever the log level (CBC and Clp print through it).
class SilentHandler : public CoinMessageHandler {
 public:
  SilentHandler() { setLogLevel(0); }
  int print() override { return 0; }
  CoinMessageHandler* clone() const override { return new SilentHandler(*this); }
};

// Stops Clp at the next iteration once the deadline is reached.
class ClpStop : public ClpEventHandler {
 public:
  explicit ClpStop(const Deadline* deadline) : deadline_(deadline) {}
  int event(Event which) override {
    return which == endOfIteration && deadline_->reached() ? 0 : -1;
  }
  ClpEventHandler* clone() const override { return new ClpStop(*this); }

 private:
  const Deadline* deadline_;
};

double toCoin(double x) {
  if (x == kUnbounded) return COIN_DBL_MAX;
  if (x == -kUnbounded) return -COIN_DBL_MAX;
  return x;
}

// CBC's "no value" (1e50 and beyond, COIN_DBL_MAX) as +-infinity.
double fromCoin(double x) {
  if (!std::isfinite(x) || std::abs(x) >= 1e50) return x > 0 ? kUnbounded : -kUnbounded;
  return x;
}

// The model as an Osi problem, without the objective's constant (added back to every value
// reported). No names: CBC does not need them (the start goes in by column), and names of our own
// (OsiNameDiscipline 2) without row names crashed Clp's presolve inside CbcMain1 (CBC 2.10.8).
void loadModel(const Model& model, OsiClpSolverInterface& solver) {
  const int n = model.numVars(), m = model.numConstraints();
  // Row by row into one set of arrays (appending rows one at a time to a CoinPackedMatrix copies
  // it again and again: 20 s for the 83,000 rows of op BERT-12 training's program).
  std::vector<CoinBigIndex> starts(m + 1, 0);
  std::vector<int> lengths(m), indices;
  std::vector<double> elements, row_lower(m), row_upper(m);
  for (int i = 0; i < m; ++i) {
    const auto& row = model.rows()[i];
    starts[i] = static_cast<CoinBigIndex>(indices.size());
    lengths[i] = static_cast<int>(row.terms.size());
    for (const auto& [column, coefficient] : row.terms) {
      indices.push_back(column);
      elements.push_back(coefficient);
    }
    row_lower[i] = row.sense == Model::Sense::Le ? -COIN_DBL_MAX : row.rhs;
    row_upper[i] = row.sense == Model::Sense::Ge ? COIN_DBL_MAX : row.rhs;
  }
  starts[m] = static_cast<CoinBigIndex>(indices.size());
  const CoinPackedMatrix matrix(false, n, m, starts[m], elements.data(), indices.data(), starts.data(),
                                lengths.data());
  std::vector<double> col_lower(n), col_upper(n), objective(n, 0.0);
  for (int j = 0; j < n; ++j) {
    col_lower[j] = toCoin(model.vars()[j].lower);
    col_upper[j] = toCoin(model.vars()[j].upper);
  }
  for (const auto& [column, coefficient] : model.objective().terms())
    objective[column] += coefficient;
  solver.loadProblem(matrix, col_lower.data(), col_upper.data(), objective.data(), row_lower.data(),
                     row_upper.data());
  for (int j = 0; j < n; ++j) {
    if (model.vars()[j].type != VarType::Continuous) solver.setInteger(j);
  }
  solver.setObjSense(1.0);
}

void silence(OsiClpSolverInterface& solver, CoinMessageHandler* handler) {
  solver.passInMessageHandler(handler);
  solver.messageHandler()->setLogLevel(0);
  solver.getModelPtr()->passInMessageHandler(handler);
  solver.getModelPtr()->setLogLevel(0);
  solver.setHintParam(OsiDoReducePrint, true, OsiHintTry);
}

enum class LpEnd { Optimal, Infeasible, Unbounded, Stopped, Failed };

// One LP with Clp, stopped at the deadline; the column values when optimal.
LpEnd solveLp(OsiClpSolverInterface& lp, const Deadline& deadline, std::vector<double>& values) {
  ClpStop stop(&deadline);
  lp.getModelPtr()->passInEventHandler(&stop);
  lp.initialSolve();
  if (lp.isProvenOptimal()) {
    values.assign(lp.getColSolution(), lp.getColSolution() + lp.getNumCols());
    return LpEnd::Optimal;
  }
  if (lp.isProvenPrimalInfeasible()) return LpEnd::Infeasible;
  if (lp.isProvenDualInfeasible()) return LpEnd::Unbounded;
  return deadline.reached() ? LpEnd::Stopped : LpEnd::Failed;
}

// Completes the integer values of `start` with an LP over the continuous columns. Empty when the
// start cannot be completed to a feasible solution (or the stop flag ends the LP).
std::vector<double> completeStart(const Model& model, const OsiClpSolverInterface& solver,
                                  const std::vector<double>& start, const Deadline& deadline,
                                  CoinMessageHandler* handler) {
  OsiClpSolverInterface lp(solver);
  silence(lp, handler);
  for (int j = 0; j < model.numVars(); ++j) {
    if (model.vars()[j].type == VarType::Continuous) continue;
    const double value = std::round(start[j]);
    lp.setContinuous(j);
    lp.setColBounds(j, value, value);
  }
  std::vector<double> values;
  if (solveLp(lp, deadline, values) != LpEnd::Optimal) return {};
  for (int j = 0; j < model.numVars(); ++j) {
    if (model.vars()[j].type != VarType::Continuous) values[j] = std::round(start[j]);
  }
  if (model.maxViolation(values) > 1e-6) return {};
  return values;
}

// What the event handler and the driver's callback share for one call.
struct Run {
  const Options* options = nullptr;
  Deadline deadline;
  double offset = 0;               // the objective's constant
  int columns = 0;
  const std::vector<double>* start = nullptr;  // the completed start (null: none)
  double start_objective = kUnbounded;  // of the completed start, in CBC's terms (without offset)
  double last_report = 0;
  // Best bound seen from the top-level search (with offset) before the deadline. After it, Clp's
  // LPs are cut short, which CBC may take for infeasible nodes, so its later bounds are not used.
  double bound = -kUnbounded;
  bool stopped = false;            // the handler told CBC to stop
  bool aborted_before_search = false;
  bool start_held = false;         // CBC's incumbent was at least as good as the start when it began
  std::vector<double> best;        // CBC's incumbent when its search ended (empty: none)
};

// CbcMain1 takes a plain function for its callback: the current call's Run, under the mutex.
Run* current_run = nullptr;

class Events : public CbcEventHandler {
 public:
  explicit Events(Run* run) : run_(run) {}
  CbcAction event(CbcEvent which) override {
    Run& run = *run_;
    if (run.deadline.reached()) {
      run.stopped = true;
      if (model_ != nullptr) model_->setMaximumSeconds(0.0);  // checked by the root loops too
      return stop;
    }
    if (model_ != nullptr && model_->parentModel() == nullptr && which != endSearch) report(*model_);
    return noAction;
  }
  CbcEventHandler* clone() const override { return new Events(*this); }

 private:
  void report(CbcModel& model) {
    Run& run = *run_;
    const double seconds = secondsSince(run.deadline.start);
    double incumbent = kUnbounded;
    if (model.bestSolution() != nullptr) incumbent = fromCoin(model.getMinimizationObjValue());
    if (std::isfinite(incumbent)) incumbent += run.offset;
    const double cbc_bound = fromCoin(model.getBestPossibleObjValue());
    if (std::isfinite(cbc_bound)) run.bound = std::max(run.bound, cbc_bound + run.offset);
    const Options& o = *run.options;
    if (!o.progress || seconds - run.last_report < o.progress_interval) return;
    run.last_report = seconds;
    Progress p;
    p.seconds = seconds;
    p.incumbent = incumbent;
    p.bound = std::max(run.bound, o.known_bound);
    if (std::isfinite(incumbent)) p.bound = std::min(p.bound, incumbent);
    p.gap = relativeGap(p.incumbent, p.bound);
    p.nodes = model.getNodeCount();
    o.progress(p);
  }

  Run* run_;
};

// CbcMain1's callback: 2 after preprocessing (none here), 3 just before branch-and-cut, where the
// start goes in (a nonzero return ends CbcMain1 at 2 and 3), 4 and 5 after it, where its incumbent is
// taken (the model passed to CbcMain1 gets only its value).
int driverCallback(CbcModel* model, int where) {
  Run& run = *current_run;
  if (where == 3 && model != nullptr) {
    // The start, already completed and checked, becomes the incumbent unless CBC holds a better one.
    const bool better = model->bestSolution() != nullptr &&
                        model->getMinimizationObjValue() <=
                            run.start_objective + 1e-9 * std::max(1.0, std::abs(run.start_objective));
    if (run.start != nullptr && !better && static_cast<int>(run.start->size()) == model->getNumCols()) {
      model->setBestSolution(run.start->data(), model->getNumCols(), run.start_objective, false);
      if (model->getSolutionCount() == 0) model->setSolutionCount(1);
    }
    run.start_held = model->bestSolution() != nullptr &&
                     model->getMinimizationObjValue() <=
                         run.start_objective + 1e-9 * std::max(1.0, std::abs(run.start_objective));
  }
  if ((where == 4 || where == 5) && model != nullptr && model->bestSolution() != nullptr &&
      model->getNumCols() == run.columns) {
    run.best.assign(model->bestSolution(), model->bestSolution() + run.columns);
  }
  if ((where == 2 || where == 3) && run.deadline.reached()) {
    run.aborted_before_search = true;
    return 1;
  }
  return 0;
}

std::string number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

std::mutex& cbcMutex() {
  static std::mutex mutex;
  return mutex;
}

// The result being built and how a call ends: with CBC's answer, or falling back on the completed
// start when the search ends without an incumbent of its own.
struct Ending {
  Result& result;
  const Options& options;
  const Run& run;
  const std::vector<double>& start_values;
  double start_objective;

  Result finish() {
    result.seconds = secondsSince(run.deadline.start);
    return result;
  }
  Result withStart(Status without_start, std::string message) {
    endWithStart(result, options, start_values, start_objective, without_start, std::move(message));
    return finish();
  }
};

// A model without integer variables: Clp alone.
Result solveWithoutIntegers(const Model& model, OsiClpSolverInterface& solver, Run& run, Ending& end) {
  Result& result = end.result;
  std::vector<double> values;
  switch (solveLp(solver, run.deadline, values)) {
    case LpEnd::Optimal:
      result.set(Status::Optimal);
      result.values = std::move(values);
      result.objective = result.bound = model.objectiveValue(result.values);
      result.gap = 0;
      return end.finish();
    case LpEnd::Infeasible:
      result.set(Status::Infeasible);
      result.message = "the LP is infeasible";
      return end.finish();
    case LpEnd::Unbounded:
      result.message = "the LP is unbounded";
      return end.finish();
    case LpEnd::Stopped:
      result.interrupted = run.deadline.interrupted();
      return end.withStart(Status::NoSolution,
                           result.interrupted ? "interrupted in the LP" : "time limit reached in the LP");
    case LpEnd::Failed:
      result.message = "Clp could not solve the LP";
      return end.finish();
  }
  return end.finish();  // not reached: every case returns
}

// CbcMain1's arguments, as for the cbc program. Its cutoff increment (1e-5 by default, absolute)
// would let "optimal" be that far above the optimum, more than a bound may be off; CBC still raises
// it where the objective's coefficients show a larger step.
std::vector<std::string> cbcArguments(const Options& options, const Run& run) {
  std::vector<std::string> args = {"cbc", "-log", "0", "-slog", "0", "-timeMode", "elapsed",
                                   "-threads", "0", "-ratioGap", number(std::max(0.0, options.mip_gap)),
                                   "-increment", "1e-9"};
  const double remaining = options.time_limit - secondsSince(run.deadline.start);
  if (std::isfinite(remaining)) {
    args.push_back("-seconds");
    args.push_back(number(std::max(remaining, 0.01)));
  }
  if (!options.feasibility_pump) {
    args.push_back("-feasibilityPump");
    args.push_back("off");
  }
  if (!options.cuts) {
    args.push_back("-cuts");
    args.push_back("off");
  }
  // No integer preprocessing and no LP presolve for the root LP: neither raises events, so neither
  // could be stopped (see the top of the file).
  args.push_back("-preprocess");
  args.push_back("off");
  args.push_back("-presolve");
  args.push_back("off");
  args.push_back("-solve");
  args.push_back("-quit");
  return args;
}

// What CBC's search came to (cbc.status(), its secondary status, its incumbent and bound), read into
// the result: optimal, feasible with a gap, infeasible, or the start when CBC did worse or nothing.
Result readOutcome(const Model& model, CbcModel& cbc, Run& run, Ending& end) {
  Result& result = end.result;
  const Options& options = end.options;
  const std::vector<double>& start_values = end.start_values;
  const double start_objective = end.start_objective;
  const int n = model.numVars();
  const int status = cbc.status(), secondary = cbc.secondaryStatus();
  // A flag set at the very end may have cut an LP short, as one set earlier: either way interrupted.
  result.interrupted = run.deadline.interrupted();
  result.nodes = cbc.getNodeCount();
  result.start_used = run.start_held;
  const double cbc_bound = fromCoin(cbc.getBestPossibleObjValue());
  result.bound = std::max(run.bound, options.known_bound);
  if (!run.stopped && !run.deadline.reached() && std::isfinite(cbc_bound))
    result.bound = std::max(result.bound, cbc_bound + run.offset);
  if (run.aborted_before_search) {
    return end.withStart(Status::NoSolution, result.interrupted ? "interrupted before branch-and-cut"
                                                                : "time limit reached before branch-and-cut");
  }

  // The incumbent, on the model's own columns, as CBC's search kept it (the solver's own values may
  // come from an LP cut short at the deadline).
  if (run.best.empty() && cbc.bestSolution() != nullptr) run.best.assign(cbc.bestSolution(), cbc.bestSolution() + n);
  const bool has_incumbent = !run.best.empty();
  if (has_incumbent) {
    result.values = run.best;
    if (model.maxViolation(result.values) > 1e-5) {
      result.values.clear();
      result.message = "CBC's incumbent violates the model; ";
    }
  }
  const bool incumbent = !result.values.empty();
  if (incumbent) result.objective = model.objectiveValue(result.values);
  // Never worse than the start: CBC may decline it or lose it.
  const bool start_better =
      !start_values.empty() && (!incumbent || start_objective < result.objective - 1e-9 * std::abs(start_objective));
  // Past the deadline CBC's conclusions are not trusted: an LP cut short there may have closed a node
  // as infeasible, and with it the tree.
  const bool cut_short = run.stopped || run.deadline.reached();

  if (!cut_short && status == 0 && secondary == 7) {
    result.call = Call::Error;
    result.message += "the LP relaxation is unbounded";
    return end.finish();
  }
  if (!cut_short && status == 0 && incumbent && !start_better) {
    result.set(Status::Optimal);
    // Tree exhausted: the incumbent is the optimum; stopped on the gap: the bound CBC proved.
    if (secondary != 2 || options.mip_gap <= 0) result.bound = result.objective;
    result.bound = std::min(result.bound, result.objective);
    result.gap = relativeGap(result.objective, result.bound);
    return end.finish();
  }
  if (!cut_short && status == 0 && !has_incumbent && (secondary == 0 || secondary == 1)) {
    if (start_values.empty()) {
      result.set(Status::Infeasible);
      result.message = "no integer solution exists";
      return end.finish();
    }
    return end.withStart(Status::Infeasible,
                         "CBC found no solution although the start is feasible (within 1e-6): the start is "
                         "returned");
  }
  if (cut_short || status == 0 || status == 1 || status == 5) {
    const std::string why = result.interrupted ? "interrupted"
                            : cut_short        ? "time limit reached"
                            : status == 0      ? "CBC's incumbent was worse than the start"
                                               : "stopped by CBC (status " + std::to_string(status) + "/" +
                                                     std::to_string(secondary) + ")";
    if (incumbent && !start_better) {
      result.set(Status::Feasible);
      result.bound = std::min(result.bound, result.objective);
      result.gap = relativeGap(result.objective, result.bound);
      result.message += why;
      return end.finish();
    }
    return end.withStart(Status::NoSolution,
                         result.message + (incumbent ? why : why + " before any solution was found"));
  }
  result.call = Call::Error;
  result.message += status == 2 ? "CBC abandoned the search (numerical difficulties)"
                                : "CBC ended with status " + std::to_string(status) + "/" + std::to_string(secondary);
  if (incumbent) {
    result.bound = std::min(result.bound, result.objective);
    result.gap = relativeGap(result.objective, result.bound);
  }
  return end.finish();
}

}  // namespace

bool cbcBuilt() {
  return true;
}

Result solveCbc(const Model& model, const Options& options) {
  std::lock_guard<std::mutex> lock(cbcMutex());
  Result result;
  Run run;
  run.options = &options;
  run.deadline = {Clock::now(), options.time_limit, options.stop};
  run.offset = model.objective().constant();
  run.columns = model.numVars();
  const int n = model.numVars();
  SilentHandler silent;  // outlives every CBC and Clp object below, which point at it

  OsiClpSolverInterface solver;
  silence(solver, &silent);
  if (n > 0) loadModel(model, solver);

  std::vector<double> start_values;
  if (!options.start.empty() && n > 0) {
    // Not limited by the time, as with GLPK: the start is what a time-limited solve falls back on,
    // and with its integers fixed the LP is small work. The stop flag still ends it.
    Deadline unlimited = run.deadline;
    unlimited.time_limit = kUnbounded;
    start_values = completeStart(model, solver, options.start, unlimited, &silent);
    result.start_feasible = !start_values.empty();
  }
  const double start_objective = start_values.empty() ? kUnbounded : model.objectiveValue(start_values);
  run.start_objective = start_objective - run.offset;

  Ending end{result, options, run, start_values, start_objective};

  if (n == 0) {
    // Nothing to choose: the rows hold or they do not.
    if (model.maxViolation({}) > 1e-9) {
      result.set(Status::Infeasible);
      result.message = "a row without variables does not hold";
    } else {
      result.set(Status::Optimal);
      result.objective = result.bound = run.offset;
      result.gap = 0;
    }
    return end.finish();
  }
  if (run.deadline.interrupted()) {
    result.interrupted = true;
    return end.withStart(Status::NoSolution, "interrupted before the search");
  }
  if (options.time_limit <= 0) return end.withStart(Status::NoSolution, "no time to search (time limit 0)");

  if (model.numIntegerVars() == 0) return solveWithoutIntegers(model, solver, run, end);

  // Every LP of the search (copies of this one) stops at the deadline: the root LP, the nodes', the
  // heuristics' (a dive raises no CBC event and looks at no clock but its own), the final ones.
  ClpStop lp_stop(&run.deadline);
  solver.getModelPtr()->passInEventHandler(&lp_stop);
  CbcModel cbc(solver);
  cbc.passInMessageHandler(&silent);
  cbc.setLogLevel(0);
  Events events(&run);
  cbc.passInEventHandler(&events);
  if (!start_values.empty()) run.start = &start_values;
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  data.useSignalHandler_ = false;  // the CLI's SIGINT handler sets the stop flag; CBC's would replace it
  CbcMain0(cbc, data);
  silence(*dynamic_cast<OsiClpSolverInterface*>(cbc.solver()), &silent);
  cbc.setLogLevel(0);

  const std::vector<std::string> args = cbcArguments(options, run);
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());

  current_run = &run;
  CbcMain1(static_cast<int>(argv.size()), argv.data(), cbc, driverCallback, data);
  current_run = nullptr;

  return readOutcome(model, cbc, run, end);
}

}  // namespace placer::mip

#else  // no CBC in this build

namespace placer::mip {

bool cbcBuilt() {
  return false;
}

Result solveCbc(const Model&, const Options&) {
  Result result;
  result.call = Call::Error;
  result.message = kNoCbcMessage;
  return result;
}

}  // namespace placer::mip

#endif
