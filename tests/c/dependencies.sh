#!/usr/bin/env bash
# Dependencies between the library's source files run one way: no two files of c/ call each
# other. Compiles each file on its own, reads what it defines and what it calls (nm), prints the
# graph and fails on any pair that calls both ways.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for f in "$root"/c/*.c; do
  "${CC:-cc}" -O2 -I"$root/c" -c "$f" -o "$work/$(basename "$f" .c).o"
done
cd "$work"
for o in *.o; do
  nm --defined-only "$o" | awk -v f="${o%.o}" '$2 ~ /^[TDBR]$/ {print $3, f}'
done | sort > defined
for o in *.o; do
  nm -u "$o" | awk '{print $2}' | sort | join - defined | awk -v f="${o%.o}" '$2 != f {print f, $2}'
done | sort -u > edges
awk '{to[$1] = to[$1] " " $2} END {for (f in to) print f " ->" to[f]}' edges | sort
cycles=$(awk '{edge[$1 " " $2] = 1} END {for (e in edge) {split(e, p, " "); if (p[1] < p[2] && (p[2] " " p[1]) in edge) print p[1] " <-> " p[2]}}' edges)
if [ -n "$cycles" ]; then
  echo "files that call each other:"
  echo "$cycles"
  exit 1
fi
echo "no two files call each other"
