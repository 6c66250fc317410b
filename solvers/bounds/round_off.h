// What the lower bounds give up to floating point: a bound computed by an LP, a MIP or a sum of
// rounded terms is lowered by this fraction, so that round-off never lifts it above an optimum.
#pragma once

namespace placer {

inline constexpr double kBoundSafety = 1e-9;

}  // namespace placer
