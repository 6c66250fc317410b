# Sourced by the ONNX Runtime test scripts of this directory (after setting `cli`): what each checks
# before it runs, and its scratch directory.

ort_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ONNX Runtime's memory in transparent huge pages (glibc's allocator asks for them with madvise, where
# the kernel's setting is "madvise" or "always"): a run here materialises every weight of the model
# once per session (ConstantOfShape), and faulting that in 4 KiB pages was most of its time. VGG-16
# on two accelerators, run_stages.mjs: 10.9 s (6.9 s of it in the kernel) against 4.5 s; the release
# ctest run, 425 s against 324 s on 2 cores. The outputs compared are the same. A value the caller
# set is kept.
export GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.hugetlb=1}

# Fails (exit 1) unless the onnx-placer binary, node and onnxruntime-node (installed beside this file
# by `npm ci --ignore-scripts`) are there.
ort_require() {
  if [ ! -x "$cli" ]; then
    echo "FAIL: onnx-placer binary not found: $cli" >&2
    exit 1
  fi
  if ! command -v node >/dev/null 2>&1; then
    echo "FAIL: node is not installed" >&2
    exit 1
  fi
  if [ ! -d "$ort_dir/node_modules/onnxruntime-node" ]; then
    echo "FAIL: ONNX Runtime is not installed; run (cd tests/ort && npm ci --ignore-scripts)" >&2
    exit 1
  fi
}

# Sets `tmp` to a new scratch directory named for NAME, removed when the script exits.
ort_scratch() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/onnx-placer-$1.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
}
