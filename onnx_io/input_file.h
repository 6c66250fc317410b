// Reading the files a user names as inputs (models, workloads, splits, device specifications,
// profiles): only regular files, and only up to a size cap, so a directory, a device such as
// /dev/zero or a FIFO, or a runaway file is refused by name instead of hanging or exhausting memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/status.h"

namespace placer {

inline constexpr std::uintmax_t kMaxModelBytes = std::uintmax_t{2} << 30;  // protobuf's own limit: 2 GiB
inline constexpr std::uintmax_t kMaxTextBytes = std::uintmax_t{1} << 30;   // JSON and CSV inputs: 1 GiB

// The whole file. IoError naming the path when it cannot be opened or read, or is not a regular
// file (what it is instead is said); InvalidInput when it is larger than `cap` (the cap is said).
Expected<std::string> readInputFile(const std::filesystem::path& path, std::uintmax_t cap);

}  // namespace placer
