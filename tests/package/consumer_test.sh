#!/usr/bin/env bash
# The installed package as a user's project sees it: `cmake --install` into a temporary prefix, then
# a project outside the source tree builds the C and C++ examples (examples/embed) with
# find_package(onnx_placer CONFIG) against the shared and the static library, and with pkg-config,
# the Python example runs on the installed module and the example plugin, built with the installed
# headers, runs in the installed CLI's pipeline;
# each runs on a bundled model and must write the stage sub-models the CLI writes for the same
# options, byte for byte.
# Usage: consumer_test.sh BUILD_DIR SOURCE_DIR MODEL.onnx
set -euo pipefail
build=$(realpath "$1") source=$(realpath "$2") model=$(realpath "$3")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAILED: $1"; }

cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"
"$prefix/bin/onnx-placer" place "$model" --accelerators 2 -q --stages-dir "$scratch/cli" > /dev/null

# same_stages DIR WHAT: DIR holds the CLI's stage files, byte for byte.
same_stages() {
  local dir=$1 what=$2 k=0
  for expected in "$scratch"/cli/stage*.onnx; do
    if ! cmp -s "$expected" "$dir/$(basename "$expected")"; then fail "$what: $(basename "$expected") differs"; return; fi
    k=$((k + 1))
  done
  [ "$k" -gt 0 ] && pass "$what: $k stage(s) as the CLI writes them" || fail "$what: no stages"
}

cmake -S "$source/tests/package/consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DEXAMPLES_DIR="$source/examples/embed" -DCMAKE_BUILD_TYPE=Release > "$scratch/configure.log" 2>&1 ||
  { cat "$scratch/configure.log"; exit 1; }
cmake --build "$scratch/consumer" -j2 > "$scratch/build.log" 2>&1 || { cat "$scratch/build.log"; exit 1; }
for program in place_c place_cpp place_cpp_static; do
  mkdir -p "$scratch/out-$program"
  if "$scratch/consumer/$program" "$model" "$scratch/out-$program" > "$scratch/$program.log" 2>&1; then
    same_stages "$scratch/out-$program" "find_package, $program"
  else
    cat "$scratch/$program.log"; fail "find_package, $program exited with $?"
  fi
done
# The static program depends on no libonnx_placer.so.
if ldd "$scratch/consumer/place_cpp_static" | grep -q libonnx_placer; then fail "place_cpp_static links libonnx_placer.so"
else pass "place_cpp_static is self-contained"; fi

# pkg-config: the C example against the shared library.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
libdir=$(pkg-config --variable=libdir onnx_placer)
cc -std=c11 "$source/examples/embed/place.c" $(pkg-config --cflags --libs onnx_placer) -Wl,-rpath,"$libdir" \
  -o "$scratch/place_pc"
mkdir -p "$scratch/out-pc"
"$scratch/place_pc" "$model" "$scratch/out-pc" > /dev/null && same_stages "$scratch/out-pc" "pkg-config, place.c" ||
  fail "pkg-config, place.c"
[ "$(pkg-config --modversion onnx_placer)" = "$(sed -n 's/#define ONNX_PLACER_VERSION "\(.*\)"/\1/p' \
  "$prefix/include/onnx_placer/version.h")" ] && pass "pkg-config version" || fail "pkg-config version"
# The example plugin, built against the installed headers alone, in a pipeline of the installed CLI.
cc -std=c11 -shared -fPIC "$source/examples/plugin/example_plugin.c" $(pkg-config --cflags onnx_placer) \
  -o "$scratch/libexample_plugin.so"
if "$prefix/bin/onnx-placer" place "$model" -q --pass-plugin "$scratch/libexample_plugin.so" --pipeline \
    scale-cpu=4,subdivide,colocate,orphans,scc,fold-leaves,partition,expand > "$scratch/plugin.json"; then
  grep -q '"max_load_seconds"' "$scratch/plugin.json" && pass "the example plugin in the installed CLI's pipeline" ||
    fail "the example plugin: no report"
else
  fail "the example plugin in the installed CLI's pipeline"
fi

# The Python example against the installed module, when the build has one.
if [ -d "$prefix/lib/python3/dist-packages/onnx_placer" ]; then
  if PYTHONPATH=$prefix/lib/python3/dist-packages PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 \
      "$source/examples/embed/place.py" "$model" "$scratch/out-py" > "$scratch/python.log" 2>&1; then
    same_stages "$scratch/out-py" "installed Python module, place.py"
  else
    cat "$scratch/python.log"; fail "installed Python module, place.py"
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
