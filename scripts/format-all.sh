#!/usr/bin/env bash
# Reformats every TS/JS/JSON file (Biome) and every C++ file (clang-format) in
# one go, for the one-time reformat after the formatters were introduced.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run format
npm run format:cpp
