// SIGINT and SIGTERM for the command line: the first one sets a flag that the solvers (through
// SolverSettings::budget) and the output transaction (onnx_io/output_files.h) check, so a run stops
// at the next check, removes what it has written and exits 130 (SIGINT) or 143 (SIGTERM). A second
// signal ends the process at once, as the signal's default action would.
#pragma once

#include <atomic>

namespace placer::cli {

// Installs the handlers (once) and returns the flag they set.
const std::atomic<bool>& installInterruptHandlers();
// The flag, whether or not the handlers are installed.
const std::atomic<bool>& interruptFlag();
// The signal that set the flag (0 while none has).
int interruptSignal();

}  // namespace placer::cli
