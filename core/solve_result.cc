#include "core/solve_result.h"

namespace placer {

const char* toString(SolveStatus status) {
  switch (status) {
    case SolveStatus::Optimal:
      return "optimal";
    case SolveStatus::Feasible:
      return "feasible";
    case SolveStatus::Infeasible:
      return "infeasible";
    case SolveStatus::TimeLimit:
      return "time-limit";
    case SolveStatus::ResourceLimit:
      return "resource-limit";
    case SolveStatus::Interrupted:
      return "interrupted";
    case SolveStatus::Error:
      return "error";
  }
  return "error";
}

}  // namespace placer
