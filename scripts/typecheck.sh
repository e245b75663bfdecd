#!/usr/bin/env bash
# `npm run typecheck`: tsc --noEmit over tsconfig.json, incremental. What tsc learnt of the last check
# (its .tsbuildinfo: every file's content hash and diagnostics) is kept in $XDG_CACHE_HOME/open-dice
# (or ~/.cache/open-dice) and brought into node_modules/.cache, so that a fresh clone with a fresh
# `npm ci` (CI) finds it there too: the paths it holds are relative to it, the same in every clone. tsc
# checks again every file whose content changed and every file that depends on one: about 5 s of CPU
# instead of 20 when few changed. TYPECHECK_CACHE=0 checks from nothing.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${TYPECHECK_CACHE:-}" = 0 ]; then exec npx tsc --noEmit; fi
kept="${XDG_CACHE_HOME:-$HOME/.cache}/open-dice/tsc.tsbuildinfo"
here=node_modules/.cache/open-dice/tsc.tsbuildinfo
mkdir -p "$(dirname "$here")"
[ -f "$here" ] || { [ -f "$kept" ] && cp "$kept" "$here"; }
npx tsc --noEmit --incremental --tsBuildInfoFile "$here"
status=$?
# Kept whole or not at all (written under another name, then renamed); a home that cannot take it
# only costs the next clone the full check.
if [ -f "$here" ] && mkdir -p "$(dirname "$kept")" 2>/dev/null && cp "$here" "$kept.$$" 2>/dev/null; then mv "$kept.$$" "$kept"; fi
exit $status
