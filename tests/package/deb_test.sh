#!/usr/bin/env bash
# The Debian package as a user installs it: `cpack -G DEB` in the build directory, `apt-get install
# ./onnx-placer_*.deb` (as root, or through sudo), then the installed `onnx-placer --version` and
# `place` on a bundled model from the installed location, the installed Python module when the package
# has one, and the package removed again, so the machine is left as it was. Run by .ci/run after the
# Release build's tests; it changes the system, so ctest does not run it.
# Usage: deb_test.sh BUILD_DIR MODEL.onnx
set -euo pipefail
build=$(realpath "$1") model=$(realpath "$2")
sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
scratch=$(mktemp -d)
cleanup() {
  $sudo apt-get purge -y -q onnx-placer > /dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAILED: $1"; }

rm -f "$build"/onnx-placer_*.deb
(cd "$build" && cpack -G DEB > "$scratch/cpack.log") || { cat "$scratch/cpack.log"; exit 1; }
deb=$(ls "$build"/onnx-placer_*.deb)
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -q --no-install-recommends "$deb" > "$scratch/apt.log" 2>&1 || { cat "$scratch/apt.log"; exit 1; }
[ "$(command -v onnx-placer)" = /usr/bin/onnx-placer ] && pass "onnx-placer installed in /usr/bin" ||
  fail "onnx-placer not at /usr/bin (found: $(command -v onnx-placer))"
version=$(/usr/bin/onnx-placer --version)
[ "$version" = "onnx-placer $(dpkg-query -W -f='${Version}' onnx-placer)" ] && pass "$version" ||
  fail "--version says '$version'"
if (cd "$scratch" && /usr/bin/onnx-placer place "$model" --accelerators 2 -q --report report.json \
      --stages-dir stages -o placed.onnx); then
  [ -s "$scratch/report.json" ] && [ -s "$scratch/stages/stage0.onnx" ] && [ -s "$scratch/placed.onnx" ] &&
    pass "place from the installed location" || fail "place wrote no outputs"
else
  fail "place from the installed location exited with $?"
fi
[ -f /usr/lib/cmake/onnx_placer/onnx_placerConfig.cmake ] && [ -f /usr/lib/pkgconfig/onnx_placer.pc ] &&
  [ -f /usr/include/onnx_placer/placer.h ] && pass "headers, CMake package and pkg-config file installed" ||
  fail "headers, CMake package or pkg-config file missing"
if dpkg -L onnx-placer | grep -q '/onnx_placer/__init__.py$'; then
  if (cd "$scratch" && /usr/bin/python3 -c "import onnx_placer, sys; print(onnx_placer.__version__)") \
      > "$scratch/python.log" 2>&1 && grep -q "$(dpkg-query -W -f='${Version}' onnx-placer)" "$scratch/python.log"; then
    pass "the installed Python module imports"
  else
    cat "$scratch/python.log"; fail "the installed Python module does not import"
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
