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
