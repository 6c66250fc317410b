#include "tools/interrupt.h"

#include <csignal>
#include <cstring>

#include <unistd.h>

namespace placer::cli {

namespace {

// Signal handlers may only touch lock-free atomics and call async-signal-safe functions.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void onSignal(int sig) {
  if (g_stop.exchange(true)) {
    // The second signal: the default action, now.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal.store(sig);
  const char* text = sig == SIGINT ? "\nonnx-placer: interrupted, stopping and removing this run's outputs\n"
                                   : "onnx-placer: terminated, stopping and removing this run's outputs\n";
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

}  // namespace

const std::atomic<bool>& installInterruptHandlers() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // interrupted reads and writes resume; the flag is checked after
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return true;
  }();
  (void)installed;
  return g_stop;
}

const std::atomic<bool>& interruptFlag() {
  return g_stop;
}

int interruptSignal() {
  return g_signal.load();
}

}  // namespace placer::cli
