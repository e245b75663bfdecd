#!/usr/bin/env bash
# Formats every file `npm run format:check` checks (.prettierrc.json), in place: for a tree that is not
# formatted yet, or after merging branches that were not. Then `npm run format:check` passes; review and
# commit the result as one change of layout only (`git diff --stat`).
set -euo pipefail
cd "$(dirname "$0")/.."
npx prettier --write --log-level warn '**/*.{ts,mts,js,mjs,cjs}'
git diff --stat | tail -1
