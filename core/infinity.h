// +infinity as the project's costs use it: the time of an operator a device cannot run, a transfer
// over no link, a bound not yet found.
#pragma once

#include <limits>

namespace placer {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace placer
