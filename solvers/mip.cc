// The backend-independent part of the MIP layer (solvers/mip.h): expressions, the model, its checks,
// and the dispatch to a backend (GLPK in mip_glpk.cc, CBC in mip_cbc.cc).
#include "solvers/mip.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>

#include "solvers/mip_backends.h"

namespace placer::mip {

void appendTerms(std::map<int, double>& merged, const LinExpr& e, double sign) {
  for (const auto& [column, coefficient] : e.terms())
    merged[column] += sign * coefficient;
}

void endWithStart(Result& result, const Options& options, const std::vector<double>& start_values,
                  double start_objective, Status without_start, std::string message) {
  result.message = std::move(message);
  result.bound = std::max(result.bound, options.known_bound);
  result.values.clear();
  result.objective = kUnbounded;
  if (!start_values.empty()) {
    result.set(Status::Feasible);
    result.values = start_values;
    result.objective = start_objective;
    result.bound = std::min(result.bound, result.objective);
    result.gap = relativeGap(result.objective, result.bound);
    result.start_used = true;
  } else {
    result.set(without_start);
    result.gap = kUnbounded;
  }
}

LinExpr& LinExpr::operator+=(const LinExpr& other) {
  terms_.insert(terms_.end(), other.terms_.begin(), other.terms_.end());
  constant_ += other.constant_;
  return *this;
}

LinExpr& LinExpr::operator-=(const LinExpr& other) {
  for (const auto& [column, coefficient] : other.terms_)
    terms_.emplace_back(column, -coefficient);
  constant_ -= other.constant_;
  return *this;
}

LinExpr& LinExpr::operator*=(double factor) {
  for (auto& term : terms_)
    term.second *= factor;
  constant_ *= factor;
  return *this;
}

LinExpr operator+(LinExpr a, const LinExpr& b) {
  return a += b;
}
LinExpr operator-(LinExpr a, const LinExpr& b) {
  return a -= b;
}
LinExpr operator-(LinExpr a) {
  return a *= -1.0;
}
LinExpr operator*(double factor, LinExpr e) {
  return e *= factor;
}
LinExpr operator*(LinExpr e, double factor) {
  return e *= factor;
}

Var Model::addVar(VarType type, double lower, double upper, std::string name) {
  if (type == VarType::Binary) {
    lower = std::max(lower, 0.0);
    upper = std::min(upper, 1.0);
  }
  vars_.push_back({type, lower, upper, std::move(name)});
  return Var{static_cast<int>(vars_.size()) - 1};
}

void Model::addRow(const LinExpr& lhs, const LinExpr& rhs, Sense sense, std::string name) {
  std::map<int, double> merged;
  appendTerms(merged, lhs, 1.0);
  appendTerms(merged, rhs, -1.0);
  Row row{{}, sense, rhs.constant() - lhs.constant(), std::move(name)};
  for (const auto& [column, coefficient] : merged) {
    if (coefficient != 0) row.terms.emplace_back(column, coefficient);
  }
  rows_.push_back(std::move(row));
}

void Model::addLe(const LinExpr& lhs, const LinExpr& rhs, std::string name) {
  addRow(lhs, rhs, Sense::Le, std::move(name));
}
void Model::addGe(const LinExpr& lhs, const LinExpr& rhs, std::string name) {
  addRow(lhs, rhs, Sense::Ge, std::move(name));
}
void Model::addEq(const LinExpr& lhs, const LinExpr& rhs, std::string name) {
  addRow(lhs, rhs, Sense::Eq, std::move(name));
}

int Model::numIntegerVars() const {
  return static_cast<int>(std::count_if(vars_.begin(), vars_.end(),
                                        [](const VarInfo& v) { return v.type != VarType::Continuous; }));
}

double Model::objectiveValue(const std::vector<double>& values) const {
  double total = objective_.constant();
  for (const auto& [column, coefficient] : objective_.terms())
    total += coefficient * values[column];
  return total;
}

double Model::maxViolation(const std::vector<double>& values) const {
  double worst = 0;
  for (int j = 0; j < numVars(); ++j) {
    const double v = values[j];
    worst = std::max({worst, vars_[j].lower - v, v - vars_[j].upper});
    if (vars_[j].type != VarType::Continuous) worst = std::max(worst, std::abs(v - std::round(v)));
  }
  for (const Row& row : rows_) {
    double activity = 0;
    for (const auto& [column, coefficient] : row.terms)
      activity += coefficient * values[column];
    // Relative to the row's magnitude, as an LP solver's feasibility tolerance is.
    const double scale = std::max(1.0, std::abs(row.rhs));
    const double excess = row.sense == Sense::Le   ? activity - row.rhs
                          : row.sense == Sense::Ge ? row.rhs - activity
                                                   : std::abs(activity - row.rhs);
    worst = std::max(worst, excess / scale);
  }
  return worst;
}

const char* toString(Status status) {
  switch (status) {
    case Status::Optimal:
      return "optimal";
    case Status::Feasible:
      return "feasible";
    case Status::Infeasible:
      return "infeasible";
    case Status::NoSolution:
      return "no-solution";
    case Status::Unknown:
      return "error";
  }
  return "?";
}

const char* toString(Backend backend) {
  switch (backend) {
    case Backend::Glpk:
      return "glpk";
    case Backend::Cbc:
      return "cbc";
  }
  return "?";
}

std::optional<Backend> parseBackend(std::string_view name) {
  if (name == "glpk") return Backend::Glpk;
  if (name == "cbc") return Backend::Cbc;
  return std::nullopt;
}

bool backendAvailable(Backend backend) {
  return backend == Backend::Glpk || cbcBuilt();
}

double relativeGap(double incumbent, double bound) {
  if (!std::isfinite(incumbent) || !std::isfinite(bound)) return kUnbounded;
  return std::max(0.0, incumbent - bound) / std::max(std::abs(incumbent), 1e-9);
}

std::optional<std::string> outOfRange(const Model& model) {
  constexpr double kLimit = 1e100;
  // Infinite bounds are allowed (free columns); a nonzero number closer to 0 than 1/kLimit is refused
  // too, since scaling divides by it.
  auto bad = [](double x) {
    if (std::isnan(x)) return true;
    if (!std::isfinite(x) || x == 0) return false;
    return std::abs(x) > kLimit || std::abs(x) < 1 / kLimit;
  };
  auto name = [](const std::string& n, const char* kind, int index) {
    return n.empty() ? std::string(kind) + " " + std::to_string(index) : std::string(kind) + " '" + n + "'";
  };
  auto message = [](const std::string& where, double x) {
    std::ostringstream out;
    out << where << " has the number " << x << ", outside the range the MIP solver takes (" << 1 / kLimit
        << " <= |x| <= " << kLimit << ")";
    return out.str();
  };
  for (int j = 0; j < model.numVars(); ++j) {
    const auto& v = model.vars()[j];
    if (bad(v.lower)) return message("the lower bound of " + name(v.name, "column", j), v.lower);
    if (bad(v.upper)) return message("the upper bound of " + name(v.name, "column", j), v.upper);
  }
  for (int i = 0; i < model.numConstraints(); ++i) {
    const auto& row = model.rows()[i];
    if (bad(row.rhs) || !std::isfinite(row.rhs))
      return message("the right-hand side of " + name(row.name, "row", i), row.rhs);
    for (const auto& [column, coefficient] : row.terms) {
      if (bad(coefficient) || !std::isfinite(coefficient))
        return message("the coefficient of " + name(model.vars()[column].name, "column", column) + " in " +
                           name(row.name, "row", i),
                       coefficient);
    }
  }
  for (const auto& [column, coefficient] : model.objective().terms()) {
    if (bad(coefficient) || !std::isfinite(coefficient))
      return message("the objective's coefficient of " + name(model.vars()[column].name, "column", column),
                     coefficient);
  }
  return std::nullopt;
}


Result solve(const Model& model, const Options& options) {
  Result result;
  // GLPK aborts the process on numbers its scaling cannot take, and CBC's are no better: such models
  // are refused here, whichever backend.
  if (auto problem = outOfRange(model)) {
    result.message = *problem;
    return result;
  }
  if (!options.start.empty() && static_cast<int>(options.start.size()) != model.numVars()) {
    result.message = "the starting solution has " + std::to_string(options.start.size()) + " values for " +
                     std::to_string(model.numVars()) + " variables";
    return result;
  }
  switch (options.backend) {
    case Backend::Glpk:
      return solveGlpk(model, options);
    case Backend::Cbc:
      return solveCbc(model, options);
  }
  result.message = "unknown MIP backend";
  return result;
}

}  // namespace placer::mip
