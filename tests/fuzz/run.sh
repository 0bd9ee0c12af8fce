#!/usr/bin/env bash
# Runs each libFuzzer target for a bounded time, as many at once as there are cores, starting from the seed
# corpus in tests/fuzz/corpus/<target> (read only: what the fuzzer finds goes to
# build-fuzz/corpus/<target>), and prints the executions of each. Fails if any target finds a
# crash, a sanitizer report, a leak, a timeout or a failed check; the input is saved in
# build-fuzz/artifacts/ (replay it with build-fuzz/fuzz_<target> FILE, or any build's
# fuzz_replay_<target> FILE).
#   bash tests/fuzz/run.sh [seconds per target, default 60] [target ...]   (npm run fuzz -- 60)
# Needs clang with the libFuzzer runtime (Debian: clang, libclang-rt-14-dev).
# MESHWELD_FUZZ_SKIP=name,... steps over a known issue (see tests/fuzz/fuzz.h, fz_skip).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build-fuzz
built=0
if [ "${1:-}" = "--built" ]; then
  build=$2
  built=1
  shift 2
fi
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(weld welder mesh query engine)

if [ "$built" = 0 ]; then
  if ! command -v clang >/dev/null; then
    echo "clang is missing: the fuzzers need clang and its libFuzzer runtime (apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
  fi
  CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMESHWELD_FUZZ=ON >/dev/null
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]/#/fuzz_}" >/dev/null
fi

mkdir -p "$build/artifacts" "$build/logs"
# One target: its fuzzer, then a summary line and its exit code in $build/logs/<target>.result.
run_target() {
  local target=$1 work="$build/corpus/$1" log="$build/logs/$1.log" start code runs units
  mkdir -p "$work"
  start=$(date +%s)
  set +e
  "$build/fuzz_$target" "$work" "tests/fuzz/corpus/$target" \
    -max_total_time="$seconds" -max_len=8192 -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$target-" >"$log" 2>&1
  code=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  units=$(find "$work" -type f | wc -l)
  printf '%s %s %s\n' "$code" "${runs:-0}" \
    "fuzz_$target: ${runs:-?} executions in $(( $(date +%s) - start )) s, corpus $units inputs (+ seeds)" \
    >"$build/logs/$target.result"
}

cores=$(nproc 2>/dev/null || echo 2)
running=0
for target in "${targets[@]}"; do
  rm -f "$build/logs/$target.result"
  if [ "$running" -ge "$cores" ]; then
    wait -n || true
    running=$(( running - 1 ))
  fi
  run_target "$target" &
  running=$(( running + 1 ))
done
wait

status=0
total=0
bad=0
for target in "${targets[@]}"; do
  result="$build/logs/$target.result"
  if [ ! -f "$result" ]; then
    echo "fuzz_$target did not report (see $build/logs/$target.log)" >&2
    code=1 runs=0
  else
    read -r code runs line <"$result"
    echo "$line"
  fi
  if [ "$code" != 0 ]; then
    echo "fuzz_$target FOUND A PROBLEM (exit $code); the input is in $build/artifacts/:" >&2
    grep -E -m 12 "meshweld fuzz check failed|^  |ERROR: |SUMMARY|runtime error|Test unit written" "$build/logs/$target.log" >&2 \
      || tail -n 30 "$build/logs/$target.log" >&2
    status=1
    bad=$(( bad + 1 ))
  else
    total=$(( total + runs ))
  fi
done
echo "fuzzing: $total executions in the targets that found nothing"
echo "fuzz targets: $(( ${#targets[@]} - bad )) passed, $bad failed"
exit $status
