// GLPK back end of the MIP layer (solvers/mip.h).
//
// The model is loaded once into a glp_prob. The LP relaxation is solved first with the simplex
// method (GLPK's branch-and-cut needs an optimal basis when its MIP presolver is off, and the
// presolver stays off so that the callback sees the model's own columns: the starting incumbent is
// injected there with glp_ios_heur_sol). The same callback reports progress and remembers the best
// node bound, which is gone once glp_intopt returns.
#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>

#include "solvers/mip.h"
#include "core/budget.h"
#include "solvers/mip_backends.h"

namespace placer::mip {

namespace {

using Clock = std::chrono::steady_clock;



// GLPK prints to stdout unless told not to; the library never prints. Restores the setting.
class QuietGlpk {
 public:
  QuietGlpk() : previous_(glp_term_out(GLP_OFF)) {}
  ~QuietGlpk() { glp_term_out(previous_); }
  QuietGlpk(const QuietGlpk&) = delete;
  QuietGlpk& operator=(const QuietGlpk&) = delete;

 private:
  int previous_;
};

struct ProbDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using ProbPtr = std::unique_ptr<glp_prob, ProbDeleter>;

void setColumnBounds(glp_prob* p, int column, double lower, double upper) {
  const bool has_lower = std::isfinite(lower), has_upper = std::isfinite(upper);
  if (has_lower && has_upper) {
    glp_set_col_bnds(p, column, lower == upper ? GLP_FX : GLP_DB, lower, upper);
  } else if (has_lower) {
    glp_set_col_bnds(p, column, GLP_LO, lower, 0);
  } else if (has_upper) {
    glp_set_col_bnds(p, column, GLP_UP, 0, upper);
  } else {
    glp_set_col_bnds(p, column, GLP_FR, 0, 0);
  }
}

ProbPtr buildProblem(const Model& model) {
  ProbPtr prob(glp_create_prob());
  glp_prob* p = prob.get();
  glp_set_obj_dir(p, GLP_MIN);
  const int n = model.numVars(), m = model.numConstraints();
  if (n > 0) glp_add_cols(p, n);
  if (m > 0) glp_add_rows(p, m);
  for (int j = 0; j < n; ++j) {
    const auto& v = model.vars()[j];
    const int column = j + 1;
    if (v.type != VarType::Continuous) glp_set_col_kind(p, column, GLP_IV);
    setColumnBounds(p, column, v.lower, v.upper);
  }
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  for (int i = 0; i < m; ++i) {
    const auto& row = model.rows()[i];
    const int r = i + 1;
    switch (row.sense) {
      case Model::Sense::Le:
        glp_set_row_bnds(p, r, GLP_UP, 0, row.rhs);
        break;
      case Model::Sense::Ge:
        glp_set_row_bnds(p, r, GLP_LO, row.rhs, 0);
        break;
      case Model::Sense::Eq:
        glp_set_row_bnds(p, r, GLP_FX, row.rhs, row.rhs);
        break;
    }
    for (const auto& [column, coefficient] : row.terms) {
      ia.push_back(r);
      ja.push_back(column + 1);
      ar.push_back(coefficient);
    }
  }
  if (ia.size() > 1) glp_load_matrix(p, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  std::map<int, double> objective;
  appendTerms(objective, model.objective(), 1.0);
  for (const auto& [column, coefficient] : objective)
    glp_set_obj_coef(p, column + 1, coefficient);
  glp_set_obj_coef(p, 0, model.objective().constant());
  // Costs in the workloads span many orders of magnitude (bytes next to milliseconds).
  if (m > 0 && n > 0) glp_scale_prob(p, GLP_SF_AUTO);
  return prob;
}

int milliseconds(double seconds);

bool isSet(const std::atomic<bool>* flag) {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}

// glp_simplex in slices of at most a quarter second: GLPK's simplex has no callback, but it resumes
// from the basis it stopped at, so between slices the stop flag is seen promptly. Returns
// glp_simplex's code of the last slice (GLP_ETMLIM once `time_limit` is spent or `stop` is set).
int simplexInSlices(glp_prob* p, glp_smcp parm, double time_limit, const std::atomic<bool>* stop) {
  const Clock::time_point start = Clock::now();
  for (;;) {
    const double left = time_limit - secondsSince(start);
    if (left <= 0 || isSet(stop)) return GLP_ETMLIM;
    parm.tm_lim = milliseconds(std::min(left, 0.25));
    const int code = glp_simplex(p, &parm);
    if (code != GLP_ETMLIM) return code;
  }
}

// Completes the integer values of `start` with an LP over the continuous variables. Empty when the
// start cannot be completed to a feasible solution.
std::vector<double> completeStart(const Model& model, glp_prob* prob, const std::vector<double>& start,
                                  double time_limit, const std::atomic<bool>* stop) {
  ProbPtr copy(glp_create_prob());
  glp_copy_prob(copy.get(), prob, GLP_OFF);
  for (int j = 0; j < model.numVars(); ++j) {
    if (model.vars()[j].type == VarType::Continuous) continue;
    const double value = std::round(start[j]);
    glp_set_col_kind(copy.get(), j + 1, GLP_CV);
    glp_set_col_bnds(copy.get(), j + 1, GLP_FX, value, value);
  }
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  // Not GLPK's LP presolver: it drops some single-variable rows, and completed starts then fail
  // the feasibility check below.
  parm.presolve = GLP_OFF;
  if (simplexInSlices(copy.get(), parm, time_limit, stop) != 0 || glp_get_status(copy.get()) != GLP_OPT)
    return {};
  std::vector<double> values(model.numVars());
  for (int j = 0; j < model.numVars(); ++j)
    values[j] = glp_get_col_prim(copy.get(), j + 1);
  for (int j = 0; j < model.numVars(); ++j) {
    if (model.vars()[j].type != VarType::Continuous) values[j] = std::round(start[j]);
  }
  if (model.maxViolation(values) > 1e-6) return {};
  return values;
}

struct CallbackState {
  const Options* options = nullptr;
  Clock::time_point start;
  double last_report = 0;
  const std::vector<double>* start_values = nullptr;  // completed start, 1 entry per column
  bool start_offered = false;
  bool start_used = false;
  double bound = -kUnbounded;
  std::int64_t nodes = 0;
  bool interrupted = false;
};

Progress snapshot(glp_tree* tree, CallbackState& state) {
  Progress p;
  p.seconds = secondsSince(state.start);
  glp_prob* prob = glp_ios_get_prob(tree);
  if (glp_mip_status(prob) == GLP_FEAS || glp_mip_status(prob) == GLP_OPT)
    p.incumbent = glp_mip_obj_val(prob);
  const int best = glp_ios_best_node(tree);
  if (best != 0) state.bound = std::max(state.bound, glp_ios_node_bound(tree, best));
  p.bound = std::max(state.bound, state.options->known_bound);
  p.gap = relativeGap(p.incumbent, p.bound);
  int active = 0, current = 0, total = 0;
  glp_ios_tree_size(tree, &active, &current, &total);
  state.nodes = total;
  p.nodes = total;
  return p;
}

void callback(glp_tree* tree, void* info) {
  auto& state = *static_cast<CallbackState*>(info);
  // GLPK checks its time limit only between some steps (not during root cut generation), and knows
  // nothing of the stop flag: both are checked at every callback.
  const bool stop = isSet(state.options->stop);
  if (stop || secondsSince(state.start) >= state.options->time_limit) {
    state.interrupted = state.interrupted || stop;
    glp_ios_terminate(tree);
    return;
  }
  if (glp_ios_reason(tree) == GLP_IHEUR && !state.start_offered && state.start_values != nullptr) {
    state.start_offered = true;
    std::vector<double> x(state.start_values->size() + 1);
    std::copy(state.start_values->begin(), state.start_values->end(), x.begin() + 1);
    state.start_used = glp_ios_heur_sol(tree, x.data()) == 0;
  }
  Progress p = snapshot(tree, state);
  if (state.options->progress && p.seconds - state.last_report >= state.options->progress_interval) {
    state.last_report = p.seconds;
    state.options->progress(p);
  }
}

int milliseconds(double seconds) {
  if (!std::isfinite(seconds)) return std::numeric_limits<int>::max();
  return static_cast<int>(std::clamp(seconds * 1000.0, 1.0, 2.0e9));
}

// The LP relaxation at the root: it gives the search its first bound and, without integer variables,
// the answer. Returns true when the call ends with it (`result` is final but for the seconds).
bool solveRootLp(const Model& model, glp_prob* p, const Options& options, Clock::time_point start,
                 const std::vector<double>& start_values, double start_objective, Result& result) {
  glp_smcp lp;
  glp_init_smcp(&lp);
  lp.msg_lev = GLP_MSG_OFF;
  lp.presolve = GLP_OFF;
  const int lp_code = simplexInSlices(p, lp, options.time_limit - secondsSince(start), options.stop);
  if (lp_code == GLP_ETMLIM) {
    result.interrupted = isSet(options.stop);
    endWithStart(result, options, start_values, start_objective, Status::NoSolution,
                 result.interrupted ? "interrupted in the LP relaxation"
                                    : "time limit reached in the LP relaxation");
    return true;
  }
  if (lp_code != 0) {
    result.message = "GLPK's simplex failed on the LP relaxation (code " + std::to_string(lp_code) + ")";
    return true;
  }
  switch (glp_get_status(p)) {
    case GLP_OPT:
      break;
    case GLP_NOFEAS:
      result.set(Status::Infeasible);
      result.message = "the LP relaxation is infeasible";
      return true;
    case GLP_UNBND:
      result.message = "the LP relaxation is unbounded";
      return true;
    default:
      result.message = "GLPK could not solve the LP relaxation";
      return true;
  }
  result.bound = glp_get_obj_val(p);
  if (model.numIntegerVars() > 0) return false;
  result.set(Status::Optimal);
  result.values.resize(model.numVars());
  for (int j = 0; j < model.numVars(); ++j)
    result.values[j] = glp_get_col_prim(p, j + 1);
  result.objective = result.bound;
  result.gap = 0;
  return true;
}

// What glp_intopt came to (its return `code` and the problem's MIP status), read into the result:
// optimal, feasible with a gap, infeasible, the start when the search found nothing, or a failure.
void readSearch(const Model& model, glp_prob* p, int code, const CallbackState& state, const Options& options,
                const std::vector<double>& start_values, double start_objective, Result& result) {
  result.nodes = state.nodes;
  result.interrupted = state.interrupted;
  result.start_used = state.start_used;
  const int mip_status = glp_mip_status(p);
  const bool has_incumbent = mip_status == GLP_OPT || mip_status == GLP_FEAS;
  if (has_incumbent) {
    result.values.resize(model.numVars());
    for (int j = 0; j < model.numVars(); ++j)
      result.values[j] = glp_mip_col_val(p, j + 1);
    result.objective = glp_mip_obj_val(p);
  }
  result.bound = std::max(state.bound, options.known_bound);
  // glp_intopt ends with GLP_EMIPGAP when the gap tolerance is met: an incumbent within the gap.
  if ((code == 0 && mip_status == GLP_OPT) || (code == GLP_EMIPGAP && has_incumbent)) {
    result.set(Status::Optimal);
    // The search ended: either the tree is exhausted (the incumbent is the optimum) or the gap
    // tolerance was met (the last best-node bound stands).
    if (options.mip_gap <= 0) result.bound = result.objective;
    result.bound = std::min(result.bound, result.objective);
    result.gap = relativeGap(result.objective, result.bound);
    return;
  }
  if (code == 0 && mip_status == GLP_NOFEAS) {
    result.set(Status::Infeasible);
    result.message = "no integer solution exists";
    return;
  }
  if (code == GLP_ETMLIM || code == GLP_ESTOP) {
    if (has_incumbent) {
      result.set(Status::Feasible);
      result.bound = std::min(result.bound, result.objective);
      result.gap = relativeGap(result.objective, result.bound);
      result.message = state.interrupted ? "interrupted" : "time limit reached";
      return;
    }
    endWithStart(result, options, start_values, start_objective, Status::NoSolution,
                 state.interrupted ? "interrupted before any solution was found"
                                   : "time limit reached before any solution was found");
    return;
  }
  result.call = Call::Error;
  result.message = "GLPK's branch-and-cut failed (code " + std::to_string(code) + ")";
}

}  // namespace

Result solveGlpk(const Model& model, const Options& options) {
  QuietGlpk quiet;
  const Clock::time_point start = Clock::now();
  Result result;
  ProbPtr prob = buildProblem(model);
  glp_prob* p = prob.get();

  std::vector<double> start_values;
  if (!options.start.empty()) {
    // Not limited by the time: the start is what a time-limited solve falls back on, and with its
    // integers fixed the LP is small work.
    start_values = completeStart(model, p, options.start, kUnbounded, options.stop);
    result.start_feasible = !start_values.empty();
  }
  const double start_objective = start_values.empty() ? kUnbounded : model.objectiveValue(start_values);
  // Falls back to the start when the search itself ends without an incumbent of its own.
  auto finishWithStart = [&](Status without_start, std::string message) {
    endWithStart(result, options, start_values, start_objective, without_start, std::move(message));
    result.seconds = secondsSince(start);
    return result;
  };

  if (isSet(options.stop)) {
    result.interrupted = true;
    return finishWithStart(Status::NoSolution, "interrupted before the search");
  }
  if (options.time_limit <= 0) return finishWithStart(Status::NoSolution, "no time to search (time limit 0)");
  if (solveRootLp(model, p, options, start, start_values, start_objective, result)) {
    result.seconds = secondsSince(start);
    return result;
  }

  CallbackState state;
  state.options = &options;
  state.start = start;
  state.start_values = start_values.empty() ? nullptr : &start_values;
  state.bound = result.bound;

  glp_iocp mip;
  glp_init_iocp(&mip);
  mip.msg_lev = GLP_MSG_OFF;
  mip.presolve = GLP_OFF;
  mip.mip_gap = options.mip_gap;
  const double remaining = options.time_limit - secondsSince(start);
  if (std::isfinite(options.time_limit) && remaining <= 0) {
    return finishWithStart(Status::NoSolution, "time limit reached before branch-and-cut");
  }
  mip.tm_lim = milliseconds(remaining);
  mip.cb_func = callback;
  mip.cb_info = &state;
  // Settings chosen on the placement programs (bench/ip_bench): the feasibility pump finds
  // incumbents early; mixed-integer rounding cuts lift the bound, the other cut families did not
  // pay for their time.
  mip.fp_heur = options.feasibility_pump ? GLP_ON : GLP_OFF;
  mip.mir_cuts = options.cuts ? GLP_ON : GLP_OFF;
  const int code = glp_intopt(p, &mip);
  readSearch(model, p, code, state, options, start_values, start_objective, result);
  result.seconds = secondsSince(start);
  return result;
}

}  // namespace placer::mip
