#!/usr/bin/env bash
# compare over every bundled model and the 16 Table 1 workloads with the default algorithms: the wall
# time with --jobs 2 and each case's overhead beyond its solve (the case's wall time, process start to
# exit, less the solve: the passes' times for a workload, the solver's for a model).
#
# Usage: bench/compare_zoo.sh BUILD_DIR [OUT_DIR] [extra compare options]
set -euo pipefail
build=${1:?usage: bench/compare_zoo.sh BUILD_DIR [OUT_DIR] [options]}
out=${2:-/tmp/onnx-placer-compare-zoo}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")/.." && pwd)
list=$(mktemp --suffix=.txt)
trap 'rm -f "$list"' EXIT
{
  for model in "$here"/tests/data/models/*.onnx; do echo "$model"; done
  for workload in "$here"/tests/data/workloads/throughput-inputs/*/*.json; do echo "$workload"; done
} > "$list"
start=$(date +%s.%N)
"$build/onnx-placer" compare "$list" --jobs 2 --out-dir "$out" "$@" || status=$?
end=$(date +%s.%N)
python3 - "$out/report.json" "$start" "$end" <<'PY'
import json, statistics, sys
report = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
cases = report["cases"]
outcomes = {}
for c in cases:
    outcomes[c["outcome"]] = outcomes.get(c["outcome"], 0) + 1
print("cases: %d (%s), algorithms: %s" % (len(cases), ", ".join("%d %s" % (n, o) for o, n in sorted(outcomes.items())),
                                           ",".join(report["algorithms"])))
print("wall time with --jobs %d: %.1f s (the sum of the cases' times: %.1f s)" %
      (report["jobs"], wall, sum(c["time"] for c in cases)))
idle = (wall * report["jobs"] - sum(c["time"] for c in cases)) / len(cases)
print("compare's own time per case (wall x jobs - the cases' times, over the cases): %.3f s" % idle)
for kind, what in (("workload", "the passes' times"), ("model", "the solver's time; loading, costing and certifying the model count as overhead")):
    o = sorted(c["time"] - c["solveSeconds"] for c in cases
               if c["kind"] == kind and c["outcome"] == "ok" and c["solveSeconds"] is not None)
    if o:
        print("%ss: time beyond the solve (%s): median %.3f s, 90th percentile %.3f s, max %.3f s (%d cases)" %
              (kind, what, statistics.median(o), o[int(0.9 * (len(o) - 1))], o[-1], len(o)))
PY
exit ${status:-0}
