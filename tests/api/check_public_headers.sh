#!/usr/bin/env bash
# Each public header compiles on its own, as one translation unit, with only the package's include
# directories (C++20; the C ABI's headers as C11 too), and reaches no third-party header (ONNX,
# protobuf, GLPK, CBC, Boost, nlohmann) and no internal one. The script first checks itself: a header
# that includes nlohmann/json.hpp must be refused.
# Usage: check_public_headers.sh CXX CC INCLUDE_DIR GENERATED_INCLUDE_DIR
set -euo pipefail
cxx=$1 cc=$2 include=$3 generated=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
forbidden='/(onnx|google|boost|nlohmann|coin|coin-or|cbc)/|glpk\.h|/(core|api|passes|solvers|cost_model|onnx_io|tools)/'

# check LANGUAGE COMPILER STD HEADER [INCLUDE_DIR]: 0 when <onnx_placer/HEADER's name> compiles alone,
# as a user includes it, and reaches nothing forbidden.
check() {
  local language=$1 compiler=$2 std=$3 header=$4 extra=${5:-$include}
  printf '#include <onnx_placer/%s>\n' "$(basename "$header")" > "$scratch/unit"
  if ! "$compiler" -x "$language" -std="$std" -fsyntax-only -H -I"$include" -I"$generated" -I"$extra" \
      "$scratch/unit" 2> "$scratch/trace"; then
    echo "$header does not compile on its own as $language ($std):"; cat "$scratch/trace"; return 1
  fi
  local bad
  bad=$(grep -E '^\.+ ' "$scratch/trace" | sed -E 's/^\.+ //' | grep -E "$forbidden" || true)
  if [ -n "$bad" ]; then echo "$header reaches headers a public header must not:"; echo "$bad"; return 1; fi
  return 0
}

mkdir -p "$scratch/bad/onnx_placer"
printf '#pragma once\n#include <nlohmann/json.hpp>\n' > "$scratch/bad/onnx_placer/leaky.h"
if check c++ "$cxx" c++20 "$scratch/bad/onnx_placer/leaky.h" "$scratch/bad" > /dev/null; then
  echo "the check accepted a header that includes nlohmann/json.hpp"; exit 1
fi

passed=0 failed=0
for header in "$include"/onnx_placer/*.h "$generated"/onnx_placer/*.h; do
  if check c++ "$cxx" c++20 "$header"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
for header in "$include"/onnx_placer/onnx_placer.h "$include"/onnx_placer/plugin.h "$generated"/onnx_placer/version.h; do
  [ -f "$header" ] || continue
  if check c "$cc" c11 "$header"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
