#!/usr/bin/env bash
# Formats every file `npm run format:check` checks (.prettierrc.json), in place: for a tree that is not
# formatted yet, or after merging branches that were not. Then `npm run format:check` passes; review and
# commit the result as one change of layout only (`git diff --stat`).
set -euo pipefail
cd "$(dirname "$0")/.."
files='**/*.{ts,mts,js,mjs,cjs}'
# Twice: a long method chain (joi's schemas) that the first pass breaks can fit on fewer lines once its
# arguments are broken, which only a second pass sees; after it the check passes.
npx prettier --write --log-level warn "$files"
npx prettier --write --log-level warn "$files"
npx prettier --check --log-level warn "$files"
git diff --stat | tail -1
