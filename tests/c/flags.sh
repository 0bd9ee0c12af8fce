#!/usr/bin/env bash
# Guarantee 5 under the user's compiler flags: the package ships c/*.c and only this repository's
# CMake passes -ffp-contract=off. This builds the library with gcc and clang at -O0, -Os,
# -O2 -march=haswell and -O3 -ffp-contract=fast (and -O3 -march=haswell -ffp-contract=fast,
# where FMA instructions exist), then checks that every build
#   - gives tests/fixtures/expected.json exactly (tests/c/fixtures.c, as the fixtures ctest does);
#   - gives the reference build's results on points placed on and within 2 ulps of hex and bcc
#     cell boundaries, near the origin and near the grids' range (tests/c/boundary.c).
# The reference is the build CMake makes: -O2 -ffp-contract=off. Usage: bash tests/c/flags.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

configs=("-O0" "-Os" "-O3 -ffp-contract=fast")
if grep -qw fma /proc/cpuinfo 2>/dev/null && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  configs+=("-O2 -march=haswell" "-O3 -march=haswell -ffp-contract=fast")
else
  echo "note: this CPU has no FMA/AVX2: the -march=haswell builds are skipped (their code would not run here)"
fi
compilers=()
for cc in gcc clang; do
  if command -v "$cc" >/dev/null; then compilers+=("$cc"); else echo "note: $cc is not installed: skipped"; fi
done
[ ${#compilers[@]} -gt 0 ] || { echo "no C compiler found" >&2; exit 1; }

# build NAME CC FLAGS...: the library and both tools, compiled file by file two at a time
build() {
  local name=$1 cc=$2
  shift 2
  mkdir -p "$work/$name"
  local pids=()
  for src in c/*.c; do
    "$cc" -std=c99 "$@" -c "$src" -o "$work/$name/$(basename "$src" .c).o" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done
  wait
  "$cc" -std=c99 "$@" -Ic tests/c/fixtures.c "$work/$name"/*.o -lm -o "$work/$name/fixtures"
  "$cc" -std=c99 "$@" -Ic tests/c/boundary.c "$work/$name"/*.o -lm -o "$work/$name/boundary"
}

build reference "${compilers[0]}" -O2 -ffp-contract=off
"$work/reference/boundary" > "$work/boundary-reference.txt"
"$work/reference/fixtures" tests/fixtures > "$work/fixtures-reference.json"
cmp -s "$work/fixtures-reference.json" tests/fixtures/expected.json ||
  { echo "the reference build (${compilers[0]} -O2 -ffp-contract=off) differs from tests/fixtures/expected.json" >&2; exit 1; }

failed=0 n=0
for cc in "${compilers[@]}"; do
  for flags in "${configs[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    build "b$n" "$cc" $flags
    what="$cc $flags"
    if ! "$work/b$n/fixtures" tests/fixtures | cmp -s - tests/fixtures/expected.json; then
      echo "FAIL $what: fixture results differ from tests/fixtures/expected.json"
      failed=1
    elif ! "$work/b$n/boundary" | cmp -s - "$work/boundary-reference.txt"; then
      echo "FAIL $what: hex/bcc boundary points differ from the reference build:"
      "$work/b$n/boundary" | diff "$work/boundary-reference.txt" - || true
      failed=1
    else
      echo "ok   $what"
    fi
  done
done
[ $failed -eq 0 ] || exit 1
echo "every build gives the same results ($n builds against ${compilers[0]} -O2 -ffp-contract=off)"
