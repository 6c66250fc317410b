#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (built with -DPLACER_FUZZ=ON; see tests/fuzz/README.md).
#
#   run_fuzzers.sh BUILD_DIR SECONDS [JOBS]   fuzz every target for SECONDS, JOBS targets at a time
#                                             (default 1), and print a table: executions, exec/s, new
#                                             corpus files and findings per target
#   run_fuzzers.sh --replay BUILD_DIR TARGET  run every seed and corpus file of TARGET once (ctest)
#
# A target starts from its seeds (the test data below, copied into a temporary directory, those
# larger than its -max_len left out) and its checked-in corpus tests/fuzz/corpus/<target>/; new
# inputs go to a fresh writable corpus directory, the first one libFuzzer is given. A finding is a
# crash, a timeout, an out-of-memory, a leak, or a sanitizer report anywhere in the output (ONNX
# shape inference runs in a forked child, whose reports libFuzzer itself does not see); any finding
# makes the script exit 1 and keeps the temporary directory, with the inputs that caused it.
# FUZZ_WORK_DIR=DIR puts the temporary files in DIR (kept) instead, to collect the new inputs;
# FUZZ_TARGETS="workload split" fuzzes only those targets.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

targets=(onnx_loader workload split device_spec profile memory_csv)
if [ -n "${FUZZ_TARGETS:-}" ] && [ "${1:-}" != --replay ]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
fi

# Largest input each target is fuzzed with (libFuzzer's -max_len), in bytes: it covers the seeds
# worth mutating, and keeps one execution in milliseconds.
max_len() {
  case $1 in
    onnx_loader) echo 98304 ;;
    workload) echo 65536 ;;
    split) echo 16384 ;;
    device_spec) echo 4096 ;;
    profile) echo 49152 ;;
    memory_csv) echo 8192 ;;
  esac
}

# The seed files of a target, one per line: the test data of its format and the crash reproducers
# of tests/data/repro/ that it reads (fuzz-onnx-*, fuzz-workload-*, fuzz-split-*, fuzz-devices-*,
# fuzz-profile-*).
seeds() {
  local data=$root/tests/data
  {
    case $1 in
      onnx_loader) ls "$data"/models/*.onnx "$data"/repro/fuzz-onnx-* ;;
      workload) find "$data/workloads" -name '*.json' ! -path '*/human-experts/*'; ls "$data"/repro/fuzz-workload-* ;;
      split) ls "$data"/workloads/human-experts/*.json "$data"/repro/fuzz-split-* ;;
      device_spec) ls "$root"/cost_model/presets/*.json "$root"/bench/devices/*.json "$data"/repro/fuzz-devices-* ;;
      profile) find "$data/profiles" -type f; ls "$data"/repro/fuzz-profile-* ;;
      memory_csv) find "$data/profiles" -name '*.csv'; ls "$data"/repro/fuzz-profile-*.csv ;;
    esac
  } 2>/dev/null | sort || true
}

# The checked-in corpus of a target, one file per line.
corpus() {
  [ -d "$here/corpus/$1" ] && find "$here/corpus/$1" -type f | sort
  true
}

# Sanitizers stop at the first report; LeakSanitizer is on, with the suppressions file for what
# third-party libraries keep in static state (README.md). The caller's options come last, so they win.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:report_error_type=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
export LSAN_OPTIONS=suppressions=$here/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
# 10 s for one input, 4 GiB per process: two targets and a build fit in 24 GiB.
limits=(-timeout=10 -rss_limit_mb=4096)

# What, in a target's output, is a finding besides its exit status.
report_pattern='ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|onnx-placer fuzz finding|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer'

binary() {
  local bin=$1/tests/fuzz/$2_fuzzer
  [ -x "$bin" ] || { echo "run_fuzzers.sh: no $bin (configure with -DPLACER_FUZZ=ON and build)" >&2; exit 2; }
  echo "$bin"
}

if [ "${1:-}" = --replay ]; then
  [ $# = 3 ] || { echo "usage: run_fuzzers.sh --replay BUILD_DIR TARGET" >&2; exit 2; }
  bin=$(binary "$2" "$3")
  mapfile -t files < <(seeds "$3"; corpus "$3")
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  log=$work/replay.log
  status=0
  TMPDIR=$work "$bin" "${limits[@]}" -artifact_prefix="$work/" "${files[@]}" >"$log" 2>&1 || status=$?
  cat "$log"
  if [ $status != 0 ] || grep -Eq "$report_pattern" "$log"; then
    echo "run_fuzzers.sh: $3: a finding while replaying ${#files[@]} files (exit status $status)" >&2
    exit 1
  fi
  echo "run_fuzzers.sh: $3: ${#files[@]} files replayed, no findings"
  exit 0
fi

[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: run_fuzzers.sh BUILD_DIR SECONDS [JOBS]" >&2; exit 2; }
build=$1
seconds=$2
jobs=${3:-1}
for t in "${targets[@]}"; do binary "$build" "$t" >/dev/null; done

if [ -n "${FUZZ_WORK_DIR:-}" ]; then
  work=$FUZZ_WORK_DIR
  mkdir -p "$work"
else
  work=$(mktemp -d)
fi

# Fuzzes one target; its output goes to $work/<target>/fuzz.log, its exit status to .../status.
fuzz_one() {
  local t=$1 dir=$work/$1
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/seeds" "$dir/artifacts" "$dir/tmp"
  local limit
  limit=$(max_len "$t")
  local n=0
  while read -r f; do
    n=$((n + 1))
    if [ "$(stat -c %s "$f")" -le "$limit" ]; then cp "$f" "$dir/seeds/$n-$(basename "$f")"; fi
  done < <(seeds "$t")
  local dirs=("$dir/corpus" "$dir/seeds")
  [ -d "$here/corpus/$t" ] && dirs+=("$here/corpus/$t")
  local status=0
  TMPDIR=$dir/tmp "$(binary "$build" "$t")" "${limits[@]}" -max_len="$limit" -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "${dirs[@]}" >"$dir/fuzz.log" 2>&1 || status=$?
  echo $status >"$dir/status"
}

running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait

failed=0
printf '%-12s %12s %8s %11s  %s\n' target executions exec/s new-inputs findings
for t in "${targets[@]}"; do
  dir=$work/$t
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/fuzz.log" | tail -1)
  fresh=$(find "$dir/corpus" -type f | wc -l)
  status=$(cat "$dir/status" 2>/dev/null || echo "?")
  findings=none
  if [ "$status" != 0 ] || grep -Eq "$report_pattern" "$dir/fuzz.log"; then
    failed=1
    findings="exit status $status: $(grep -Em1 "$report_pattern" "$dir/fuzz.log" || echo 'see the log')"
    findings="$findings; log $dir/fuzz.log; inputs $(ls "$dir/artifacts" | tr '\n' ' ')"
  fi
  printf '%-12s %12s %8s %11s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$fresh" "$findings"
done

if [ "$failed" != 0 ]; then
  echo "run_fuzzers.sh: findings; the logs and inputs are kept in $work" >&2
  exit 1
fi
[ -n "${FUZZ_WORK_DIR:-}" ] || rm -rf "$work"
