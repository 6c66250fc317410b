// A program that takes memory until it cannot (std::bad_alloc, uncaught: the C++ runtime's message
// and SIGABRT, as onnx-placer ends at its memory limit): compare's tests run it as a case that runs
// out of memory.
#include <cstring>
#include <memory>
#include <vector>

int main() {
  std::vector<std::unique_ptr<char[]>> blocks;
  for (;;) {
    blocks.emplace_back(new char[64 << 20]);
    std::memset(blocks.back().get(), 1, 64 << 20);
  }
}
