#!/usr/bin/env bash
# The whole test suite: native C tests (plain, with ASan/UBSan/LSan, and under Valgrind: there
# without the test builds' groups), then the JS tests. `npm test` runs this. Valgrind,
# Emscripten and Chromium are skipped, with a note, where they are not installed, except in CI
# (CI=true), where they must run. The fuzzers run apart: `npm run fuzz` (.ci/run does).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -d node_modules/vite ]; then
  echo "== npm ci (node_modules is missing)"
  npm ci --no-audit --no-fund
fi

echo "== native tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs" >/dev/null
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== the same results under users' compiler flags (gcc and clang, -O0 to -O3 -ffp-contract=fast)"
bash tests/c/flags.sh

echo "== native tests with AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer"
# at -O1, as the sanitizers' documentation advises: the suite takes half its time at -O0
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" -DMESHWELD_SANITIZE=ON >/dev/null
cmake --build build-sanitize -j "$jobs" >/dev/null
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-sanitize --output-on-failure -j "$jobs"

echo "== native tests under Valgrind memcheck (no leak, no invalid access)"
if command -v valgrind >/dev/null; then
  cmake -S . -B build-valgrind -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DMESHWELD_TEST_LAUNCHER=valgrind;-q;--error-exitcode=99;--leak-check=full;--errors-for-leak-kinds=definite,indirect,possible" \
    >/dev/null
  cmake --build build-valgrind -j "$jobs" >/dev/null
  ctest --test-dir build-valgrind --output-on-failure -j "$jobs"
elif [ "${CI:-}" = "true" ]; then
  echo "valgrind is missing: CI must run the native tests under it (apt-get install valgrind)" >&2
  exit 1
else
  echo "skipped: no valgrind on this machine (apt-get install valgrind); the LeakSanitizer run above still checks for leaks"
fi

echo "== fuzzers: not part of npm test; npm run fuzz -- SECONDS runs them (clang and libclang-rt-14-dev), CI does"

echo "== the committed WebAssembly build matches c/"
if command -v emcc >/dev/null; then
  fresh=$(mktemp -d)
  bash js/build-wasm.sh "$fresh" >/dev/null
  if ! cmp -s "$fresh/meshweld.wasm" js/meshweld.wasm || ! cmp -s "$fresh/wasm-inline.js" js/wasm-inline.js; then
    echo "js/meshweld.wasm is stale: run npm run build:wasm and commit the result" >&2
    exit 1
  fi
  rm -rf "$fresh"
  echo "identical"
elif [ "${CI:-}" = "true" ]; then
  echo "emcc is missing: CI must rebuild the WebAssembly module (apt-get install emscripten)" >&2
  exit 1
else
  echo "skipped: no emcc on this machine (the committed build is used)"
fi

echo "== JS tests"
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -x "$chromium" ] || [ "${CI:-}" = "true" ]; then
  node --test tests/
else
  echo "skipped: the browser and demo tests (no Chromium at $chromium: apt-get install chromium)"
  node --test $(ls tests/js/*.test.js | grep -v -e browser.test.js -e demo.test.js)
fi
