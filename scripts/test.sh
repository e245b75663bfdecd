#!/usr/bin/env bash
# The whole suite: type check, import rules, lint, then every test on SQLite (the embedded shape), then the database
# tests again on PostgreSQL and the multi-instance tests on PostgreSQL + Redis (the production shape),
# then the multi-instance tests once more on a Redis Cluster of 3 masters that this script starts
# and stops (scripts/redis-cluster.sh). Servers that cannot be reached (and redis-server/redis-cli
# missing for the cluster) are skipped with the reason, except under CI=true where they must be.
set -uo pipefail
cd "$(dirname "$0")/.."

PG_URL=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
REDIS=${TEST_REDIS_URL:-redis://127.0.0.1:6379}
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
LOG=$(mktemp -d)/ava
passed=0; failed=0; skipped_suites=(); status=0

# The tests run as JavaScript built from test/ (scripts/build-tests.mjs, ava.built.config.mjs): a pattern
# of test/**/*.test.ts names the same files in .test-build/; other arguments pass as they are.
as_built() {
  sed -E 's#^(!?)test/#\1.test-build/test/#; s#\.test\.ts$#.test.mjs#; s#^(--node-arguments=--import=)\./test/(.*)\.ts$#\1./.test-build/test/\2.mjs#' <<<"$1"
}

run_ava() { # label, env..., -- patterns...
  local label=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  echo ""
  echo "=== $label ==="
  local built=()
  for pattern in "$@"; do built+=("$(as_built "$pattern")"); done
  env "${envs[@]}" npx ava --config ava.built.config.mjs "${built[@]}" 2>&1 | tee "$LOG.$label.txt"
  local rc=${PIPESTATUS[0]}
  local p f
  # ava prints "N tests passed" only when nothing failed: count the ticks instead.
  p=$(grep -Ec '^ *✔' "$LOG.$label.txt")
  f=$(grep -Eo '^ *[0-9]+ (tests? failed|uncaught exceptions?|unhandled rejections?|known failures?)' "$LOG.$label.txt" | awk '{s+=$1} END {print s+0}')
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  if [ "$rc" -ne 0 ]; then status=1; [ "${f:-0}" -eq 0 ] && failed=$((failed + 1)); fi
}

echo "=== type check ==="
if ! npx tsc --noEmit; then status=1; failed=$((failed + 1)); echo "type check failed"; fi

# The import rules of docs/architecture.md (.dependency-cruiser.cjs): one count, passed or failed.
echo ""
echo "=== import rules ==="
if npm run --silent lint:deps; then passed=$((passed + 1)); else status=1; failed=$((failed + 1)); echo "import rules broken"; fi

# ESLint (eslint.config.js) and Prettier's check (.prettierrc.json): one count each, as the import rules.
echo ""
echo "=== lint ==="
if npm run --silent lint; then passed=$((passed + 1)); else status=1; failed=$((failed + 1)); echo "lint failed"; fi
echo ""
echo "=== format ==="
if npm run --silent format:check; then passed=$((passed + 1)); else status=1; failed=$((failed + 1)); echo "files not formatted: bash scripts/format-all.sh"; fi

# The servers and CLIs the tests start as processes of their own run the build production runs
# (test/helpers/entry.ts); a failed build fails the suite here rather than in every such test.
echo "=== build ==="
if node scripts/build.mjs; then export TEST_BUILD_DIR=dist; else status=1; failed=$((failed + 1)); echo "build failed"; fi
if ! node scripts/build-tests.mjs; then status=1; failed=$((failed + 1)); echo "test build failed"; fi

mapfile -t probe < <(node scripts/probe.mjs "$PG_URL" "$REDIS")
pg_state=${probe[0]#postgres=}
redis_state=${probe[1]#redis=}

sqlite_patterns=('test/**/*.test.ts' '!test/cluster/**' '!test/faults/**')
if [ ! -x "$CHROMIUM" ]; then
  sqlite_patterns+=('!test/browser/**')
  skipped_suites+=("browser tests (no Chromium at $CHROMIUM; apt-get install chromium)")
fi
# The SQLite pass also records every response the servers send, to check them all against the
# OpenAPI document afterwards (test/openapi/record.ts).
OPENAPI_DIR="$LOG.openapi"
run_ava sqlite TEST_DB=sqlite OPENAPI_RECORD_DIR="$OPENAPI_DIR" -- --node-arguments=--import=./test/openapi/record.ts "${sqlite_patterns[@]}"
echo ""
echo "=== every recorded response against the OpenAPI document ==="
if npx tsx test/helpers/openapi.ts check "$OPENAPI_DIR"; then passed=$((passed + 1)); else status=1; failed=$((failed + 1)); fi

# test/openapi/contract and fromJoi check the document alone, without a server or a database: the
# SQLite pass runs them, and once is enough.
db_patterns=('test/api/**/*.test.ts' 'test/accounts/activation.test.ts' 'test/accounts/pageKey.test.ts' 'test/realtime/**/*.test.ts' 'test/hostile/**/*.test.ts' 'test/concurrency/**/*.test.ts' 'test/openapi/**/*.test.ts' '!test/openapi/contract.test.ts' '!test/openapi/fromJoi.test.ts' 'test/faults/**/*.test.ts')
if [ "$pg_state" = ok ]; then
  if [ "$redis_state" = ok ]; then
    db_patterns+=('test/cluster/**/*.test.ts')
  else
    skipped_suites+=("multi-instance tests (Redis at $REDIS: $redis_state)")
  fi
  run_ava postgres TEST_DB=postgres TEST_DATABASE_URL="$PG_URL" TEST_REDIS_URL="$REDIS" -- "${db_patterns[@]}"
else
  skipped_suites+=("PostgreSQL suite (PostgreSQL at $PG_URL: $pg_state)")
  skipped_suites+=("multi-instance tests (need PostgreSQL and Redis)")
fi

# The multi-instance tests on a Redis Cluster (REDIS_CLUSTER_NODES instead of REDIS_URL). Left out:
# the tests that start a standalone redis-server of their own to stop and restart it (access, caches,
# redis-outage, metrics.outage, sequence.outage, sharded.outage, webhooks): they would only run again on a
# standalone Redis.
cluster_patterns=('test/cluster/**/*.test.ts' '!test/cluster/access.test.ts' '!test/cluster/redis-outage.test.ts' '!test/cluster/metrics.outage.test.ts' '!test/cluster/sharded.outage.test.ts' '!test/cluster/sequence.outage.test.ts' '!test/cluster/caches.test.ts' '!test/cluster/webhooks.test.ts')
if [ "$pg_state" != ok ]; then
  skipped_suites+=("Redis Cluster pass (needs PostgreSQL)")
elif ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  skipped_suites+=("Redis Cluster pass (redis-server or redis-cli not found; apt-get install redis-server)")
else
  CLUSTER_DIR=$(mktemp -d)/redis-cluster
  trap 'scripts/redis-cluster.sh stop "$CLUSTER_DIR"' EXIT
  echo ""
  echo "=== starting a Redis Cluster of 3 masters ==="
  if nodes=$(scripts/redis-cluster.sh start "$CLUSTER_DIR"); then
    echo "nodes: $nodes"
    cluster_start=$SECONDS
    run_ava rediscluster TEST_DB=postgres TEST_DATABASE_URL="$PG_URL" TEST_REDIS_URL= TEST_REDIS_CLUSTER_NODES="$nodes" -- "${cluster_patterns[@]}"
    echo "Redis Cluster pass: $((SECONDS - cluster_start)) s"
  else
    echo "could not start a Redis Cluster"
    status=1; failed=$((failed + 1))
  fi
  scripts/redis-cluster.sh stop "$CLUSTER_DIR"
  trap - EXIT
fi

echo ""
if [ ${#skipped_suites[@]} -gt 0 ]; then
  echo "Skipped:"
  for s in "${skipped_suites[@]}"; do echo "  - $s"; done
  if [ "${CI:-}" = true ]; then
    echo "Under CI every suite must run: failing."
    status=1; failed=$((failed + ${#skipped_suites[@]}))
  fi
fi
# The failed tests by name at the very end, where a reader of a truncated log looks first.
if grep -qE '^ *✘' "$LOG".*.txt 2>/dev/null; then
  echo "Failed:"
  for f in "$LOG".*.txt; do
    grep -E '^ *✘' "$f" | sed "s|^ *|  [$(basename "$f" .txt | sed 's/^ava\.//')] |"
  done
fi
echo "tests: $passed passed, $failed failed"
exit $status
