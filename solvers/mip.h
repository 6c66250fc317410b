// A small mixed-integer programming layer, so that formulations read like the paper, over two
// backends: GLPK (the default) and COIN-OR CBC (Options::backend; builds without CBC report it as
// unavailable).
//
//   mip::Model m;
//   mip::Var x = m.addBinary("x_v1");
//   mip::Var load = m.addContinuous(0, mip::kUnbounded, "Load_1");
//   m.addGe(load - 2.5 * x, 0);        // Load_1 >= 2.5 x_v1
//   m.minimize(load);
//   mip::Result r = mip::solve(m, options);
//
// The solve reports what it knows when it stops: the incumbent, the proven lower bound and the gap,
// and a status that says whether the incumbent is optimal (within the requested gap), feasible with
// a gap (stopped by the time limit), whether the model is infeasible, or whether no solution was
// found in time. A starting incumbent (values of the integer variables, e.g. from the DP or a greedy
// split) is completed by one LP and handed to the backend's branch-and-cut (GLPK: through its
// heuristic callback; CBC: as its MIP start), so a time-limited solve never returns anything worse
// than its start.
//
// Only minimisation is offered: every formulation here minimises a load or a latency.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace placer::mip {

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

enum class VarType { Continuous, Binary, Integer };

// A variable handle: its column in the model (0-based).
struct Var {
  int index = -1;
};

// Linear expression: sum of coefficient * variable, plus a constant.
class LinExpr {
 public:
  LinExpr() = default;
  LinExpr(double constant) : constant_(constant) {}      // NOLINT: implicit by design
  LinExpr(Var v) { terms_.emplace_back(v.index, 1.0); }  // NOLINT: implicit by design

  LinExpr& add(Var v, double coefficient) {
    if (coefficient != 0) terms_.emplace_back(v.index, coefficient);
    return *this;
  }
  LinExpr& operator+=(const LinExpr& other);
  LinExpr& operator-=(const LinExpr& other);
  LinExpr& operator*=(double factor);

  const std::vector<std::pair<int, double>>& terms() const { return terms_; }
  double constant() const { return constant_; }

 private:
  std::vector<std::pair<int, double>> terms_;  // (column, coefficient); duplicates are summed
  double constant_ = 0;
};

LinExpr operator+(LinExpr a, const LinExpr& b);
LinExpr operator-(LinExpr a, const LinExpr& b);
LinExpr operator-(LinExpr a);
LinExpr operator*(double factor, LinExpr e);
LinExpr operator*(LinExpr e, double factor);

class Model {
 public:
  Var addVar(VarType type, double lower, double upper, std::string name);
  Var addBinary(std::string name) { return addVar(VarType::Binary, 0, 1, std::move(name)); }
  Var addContinuous(double lower, double upper, std::string name) {
    return addVar(VarType::Continuous, lower, upper, std::move(name));
  }

  // lhs <= rhs, lhs >= rhs, lhs == rhs; the expressions may hold variables on both sides.
  void addLe(const LinExpr& lhs, const LinExpr& rhs, std::string name = "");
  void addGe(const LinExpr& lhs, const LinExpr& rhs, std::string name = "");
  void addEq(const LinExpr& lhs, const LinExpr& rhs, std::string name = "");

  void minimize(LinExpr objective) { objective_ = std::move(objective); }

  int numVars() const { return static_cast<int>(vars_.size()); }
  int numConstraints() const { return static_cast<int>(rows_.size()); }
  int numIntegerVars() const;

  // Objective value of a full assignment (for tests and checks).
  double objectiveValue(const std::vector<double>& values) const;
  // Largest violation of any bound, integrality or constraint by a full assignment (0 if feasible).
  double maxViolation(const std::vector<double>& values) const;

  struct VarInfo {
    VarType type;
    double lower, upper;
    std::string name;
  };
  enum class Sense { Le, Ge, Eq };
  struct Row {
    std::vector<std::pair<int, double>> terms;  // merged, no zero coefficients
    Sense sense;
    double rhs;
    std::string name;
  };
  const std::vector<VarInfo>& vars() const { return vars_; }
  const std::vector<Row>& rows() const { return rows_; }
  const LinExpr& objective() const { return objective_; }

 private:
  void addRow(const LinExpr& lhs, const LinExpr& rhs, Sense sense, std::string name);

  std::vector<VarInfo> vars_;
  std::vector<Row> rows_;
  LinExpr objective_;
};

// What the solver has proven when it reports or stops.
struct Progress {
  double seconds = 0;
  double incumbent = kUnbounded;  // best objective found so far (+inf: none yet)
  double bound = -kUnbounded;     // proven lower bound on the optimum
  double gap = kUnbounded;        // (incumbent - bound) / max(|incumbent|, 1e-9)
  std::int64_t nodes = 0;         // branch-and-bound nodes explored
};

// Which solver runs the model. GLPK is always built in; CBC when the build found it
// (backendAvailable). CBC runs its branch-and-cut on the calling thread (no worker threads).
enum class Backend { Glpk, Cbc };
inline constexpr Backend kDefaultBackend = Backend::Glpk;
const char* toString(Backend backend);                   // "glpk", "cbc"
std::optional<Backend> parseBackend(std::string_view name);  // inverse of toString; nullopt otherwise
// Whether this build can run `backend` (false for Cbc when it was built without CBC; solve then
// returns a failed call with kNoCbcMessage).
bool backendAvailable(Backend backend);
inline constexpr const char* kNoCbcMessage =
    "this build has no CBC: install COIN-OR CBC's development files (Debian package coinor-libcbc-dev) "
    "and configure again (CMake option PLACER_CBC, on by default)";

struct Options {
  Backend backend = kDefaultBackend;
  // Seconds for the whole call: completing the start, the root LP (GLPK checks its own clock there)
  // and branch-and-cut (checked at every callback as well as by the backend).
  double time_limit = kUnbounded;
  // Set by another thread or a signal handler: branch-and-cut stops at its next callback
  // (Result::interrupted says so; the incumbent, if any, is still returned).
  const std::atomic<bool>* stop = nullptr;
  double mip_gap = 0;  // stop once the relative gap is at most this
  // Values of the integer variables (indexed by column; continuous entries are ignored) of a known
  // solution. It is completed by an LP over the continuous variables and offered to the solver.
  std::vector<double> start;
  std::function<void(const Progress&)> progress;  // called about every progress_interval seconds
  double progress_interval = 1.0;
  // GLPK: its feasibility pump at the root. CBC: its feasibility pump (its other heuristics stay on).
  bool feasibility_pump = true;
  // GLPK: mixed-integer rounding cuts (its other cut families stay off). CBC: all of its cut
  // generators (probing, Gomory, knapsack cover, clique, MIR, flow cover, ...) on its defaults, or
  // none.
  bool cuts = true;
  // Lower bound known from elsewhere (e.g. a combinatorial bound); the reported bound is never
  // below it.
  double known_bound = -kUnbounded;
};

// Whether the call succeeded, kept apart from what the model came out as (HiGHS's HighsStatus and
// HighsModelStatus): a call fails when the backend fails (numerical trouble, an unbounded
// relaxation, numbers out of its range, a bad start) or is not built in; the model's status is then
// Unknown and Result::message says why.
enum class Call { Ok, Error };

// What the model came out as, when the call succeeded.
enum class Status {
  Optimal,     // incumbent proven optimal within Options::mip_gap
  Feasible,    // incumbent found, stopped by the time limit with a gap
  Infeasible,  // the model has no solution
  NoSolution,  // stopped by the time limit before any solution was found
  Unknown,     // the call failed
};
const char* toString(Status status);

struct Result {
  Call call = Call::Error;          // a result nobody set is a failed call
  Status status = Status::Unknown;  // meaningful when ok()
  bool ok() const { return call == Call::Ok; }
  // The call succeeded and the model came out as `model`.
  void set(Status model) {
    call = Call::Ok;
    status = model;
  }
  double objective = kUnbounded;  // of `values`, when there is an incumbent
  double bound = -kUnbounded;     // proven lower bound
  double gap = kUnbounded;        // relative gap between objective and bound
  std::vector<double> values;     // incumbent, indexed by column (empty without one)
  bool start_used = false;        // the start was accepted as an incumbent
  bool start_feasible = false;    // the start could be completed to a feasible solution
  bool interrupted = false;       // stopped because Options::stop was set
  double seconds = 0;
  std::int64_t nodes = 0;
  std::string message;  // for Error, and details of how the solve ended
};

Result solve(const Model& model, const Options& options = {});

// The first coefficient, right-hand side or finite bound of `model` whose magnitude GLPK's scaling
// cannot take (beyond 1e100, where products of two overflow a double, or nonzero below 1e-100), or a
// NaN, as a message naming the row or column; nullopt when every number is in range. solve()
// refuses such a model as a failed call, whichever backend, instead of letting GLPK abort the
// process.
std::optional<std::string> outOfRange(const Model& model);

// Relative gap as GLPK and the reports define it (both backends report it so).
double relativeGap(double incumbent, double bound);

}  // namespace placer::mip
