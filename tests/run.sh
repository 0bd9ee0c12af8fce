#!/usr/bin/env bash
# The whole test suite: native C tests (plain and with ASan/UBSan), then the JS tests.
# `npm test` runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

echo "== native tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs" >/dev/null
ctest --test-dir build --output-on-failure

echo "== native tests with AddressSanitizer and UndefinedBehaviorSanitizer"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DMESHWELD_SANITIZE=ON >/dev/null
cmake --build build-sanitize -j "$jobs" >/dev/null
ctest --test-dir build-sanitize --output-on-failure

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
node --test tests/
