#!/usr/bin/env bash
# The whole suite: type check, import rules, lint and format; every test on SQLite (the embedded
# shape); the database tests again on PostgreSQL and the multi-instance tests on PostgreSQL + Redis
# (the production shape), beside the multi-instance tests on a Redis Cluster of 3 masters that this
# script starts and stops (scripts/redis-cluster.sh). Servers that cannot be reached (and redis-server/redis-cli
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

# A pass writes its own log ($LOG.<label>.txt, its exit code in .rc) as it runs; `tally` counts it once
# it has ended. The SQLite and PostgreSQL passes run one after the other: at once on a 2-core machine
# the load they made failed tests that wait on the database (docs/performance.md, "CI time"); the
# Redis Cluster pass runs beside the PostgreSQL one.
run_ava() { # label, env..., -- patterns...   (QUIET=1: into its log only, which the caller prints)
  local label=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local built=()
  for pattern in "$@"; do built+=("$(as_built "$pattern")"); done
  local started=$SECONDS
  {
    echo ""
    echo "=== $label ==="
    env "${envs[@]}" npx ava --config ava.built.config.mjs "${built[@]}" 2>&1
    echo $? >"$LOG.$label.rc"
    echo "($label pass: $((SECONDS - started)) s)"
  } | if [ "${QUIET:-}" = 1 ]; then cat >>"$LOG.$label.txt"; else tee -a "$LOG.$label.txt"; fi
}

tally() { # label
  local label=$1 rc p f
  rc=$(cat "$LOG.$label.rc" 2>/dev/null || echo 1)
  # ava prints "N tests passed" only when nothing failed: count the ticks instead.
  p=$(grep -Ec '^ *✔' "$LOG.$label.txt")
  f=$(grep -Eo '^ *[0-9]+ (tests? failed|uncaught exceptions?|unhandled rejections?|known failures?)' "$LOG.$label.txt" | awk '{s+=$1} END {print s+0}')
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  if [ "$rc" -ne 0 ]; then status=1; [ "${f:-0}" -eq 0 ] && failed=$((failed + 1)); fi
}

# A static check (type check, import rules, lint, format): the four run at once (each is about one
# core), each into a log printed when all have ended; one count each, passed or failed.
run_check() { # label, command...
  local label=$1; shift
  "$@" >"$LOG.check-$label.txt" 2>&1
  echo $? >"$LOG.check-$label.rc"
}

tally_check() { # label, what to say when it fails
  local label=$1 rc
  rc=$(cat "$LOG.check-$label.rc" 2>/dev/null || echo 1)
  echo ""
  echo "=== $label ==="
  cat "$LOG.check-$label.txt"
  if [ "$rc" -eq 0 ]; then passed=$((passed + 1)); else status=1; failed=$((failed + 1)); echo "$2"; fi
}

# The servers and CLIs the tests start as processes of their own run the build production runs
# (test/helpers/entry.ts); a failed build fails the suite here rather than in every such test.
echo "=== build ==="
if node scripts/build.mjs; then export TEST_BUILD_DIR=dist; else status=1; failed=$((failed + 1)); echo "build failed"; fi
if ! node scripts/build-tests.mjs; then status=1; failed=$((failed + 1)); echo "test build failed"; fi

mapfile -t probe < <(node scripts/probe.mjs "$PG_URL" "$REDIS")
pg_state=${probe[0]#postgres=}
redis_state=${probe[1]#redis=}

# The multi-instance tests on a Redis Cluster (REDIS_CLUSTER_NODES instead of REDIS_URL). Left out:
# the tests that start a standalone redis-server of their own to stop and restart it (access, caches,
# redis-outage, metrics.outage, sequence.outage, sharded.outage, webhooks): they would only run again on a
# standalone Redis.
cluster_patterns=('test/cluster/**/*.test.ts' '!test/cluster/access.test.ts' '!test/cluster/redis-outage.test.ts' '!test/cluster/metrics.outage.test.ts' '!test/cluster/sharded.outage.test.ts' '!test/cluster/sequence.outage.test.ts' '!test/cluster/caches.test.ts' '!test/cluster/webhooks.test.ts')
run_cluster=false
if [ "$pg_state" != ok ]; then
  skipped_suites+=("Redis Cluster pass (needs PostgreSQL)")
elif ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  skipped_suites+=("Redis Cluster pass (redis-server or redis-cli not found; apt-get install redis-server)")
else
  run_cluster=true
fi

cluster_pass() { # runs in a subshell of its own: the cluster is stopped when it ends
  local dir nodes
  dir=$(mktemp -d)/redis-cluster
  # Expanded now: the trap runs when the subshell exits, after this function's locals are gone.
  # shellcheck disable=SC2064
  trap "scripts/redis-cluster.sh stop '$dir' >/dev/null 2>&1" EXIT
  if nodes=$(scripts/redis-cluster.sh start "$dir" 2>"$LOG.rediscluster.start.txt"); then
    echo "Redis Cluster of 3 masters started: $nodes" >"$LOG.rediscluster.txt"
    QUIET=1 run_ava rediscluster TEST_DB=postgres TEST_DATABASE_URL="$PG_URL" TEST_REDIS_URL= TEST_REDIS_CLUSTER_NODES="$nodes" -- "${cluster_patterns[@]}"
  else
    { echo "could not start a Redis Cluster of 3 masters:"; cat "$LOG.rediscluster.start.txt"; } >"$LOG.rediscluster.txt"
    echo 1 >"$LOG.rediscluster.rc"
  fi
}

# The type check; the import rules of docs/architecture.md (.dependency-cruiser.cjs); ESLint
# (eslint.config.js); Prettier's check (.prettierrc.json). They run beside the SQLite pass, whose
# first files mostly wait (sockets, timeouts), into their logs, printed after it (docs/performance.md,
# "CI time").
# The first three are skipped when they passed before on exactly these files (scripts/check-unless-passed.mjs).
run_check "type check" node scripts/check-unless-passed.mjs "type check" bash scripts/typecheck.sh &
run_check "import rules" node scripts/check-unless-passed.mjs "import rules" npm run --silent lint:deps &
run_check lint node scripts/check-unless-passed.mjs lint npm run --silent lint &
run_check format npm run --silent format:check &

sqlite_patterns=('test/**/*.test.ts' '!test/cluster/**' '!test/faults/**')
if [ ! -x "$CHROMIUM" ]; then
  sqlite_patterns+=('!test/browser/**')
  skipped_suites+=("browser tests (no Chromium at $CHROMIUM; apt-get install chromium)")
fi
# The SQLite pass also records every response the servers send, to check them all against the
# OpenAPI document afterwards (test/openapi/record.ts).
OPENAPI_DIR="$LOG.openapi"
run_ava sqlite TEST_DB=sqlite OPENAPI_RECORD_DIR="$OPENAPI_DIR" -- --node-arguments=--import=./test/openapi/record.ts "${sqlite_patterns[@]}"
tally sqlite
wait
tally_check "type check" "type check failed"
tally_check "import rules" "import rules broken"
tally_check lint "lint failed"
tally_check format "files not formatted: bash scripts/format-all.sh"
# Every response the SQLite pass recorded against the OpenAPI document (test/helpers/openapiCheck.ts),
# beside the PostgreSQL pass, into its log, printed after it.
run_check "responses against the OpenAPI document" node --enable-source-maps .test-build/test/helpers/openapiCheck.mjs "$OPENAPI_DIR" &

# test/openapi/contract and fromJoi check the document alone, without a server or a database: the
# SQLite pass runs them, and once is enough.
db_patterns=('test/api/**/*.test.ts' 'test/accounts/activation.test.ts' 'test/accounts/pageKey.test.ts' 'test/realtime/**/*.test.ts' 'test/hostile/**/*.test.ts' 'test/concurrency/**/*.test.ts' 'test/openapi/**/*.test.ts' '!test/openapi/contract.test.ts' '!test/openapi/fromJoi.test.ts' 'test/faults/**/*.test.ts')
run_postgres=false
if [ "$pg_state" = ok ]; then
  run_postgres=true
  if [ "$redis_state" = ok ]; then
    db_patterns+=('test/cluster/**/*.test.ts')
  else
    skipped_suites+=("multi-instance tests (Redis at $REDIS: $redis_state)")
  fi
else
  skipped_suites+=("PostgreSQL suite (PostgreSQL at $PG_URL: $pg_state)")
  skipped_suites+=("multi-instance tests (need PostgreSQL and Redis)")
fi

# Three files at a time here, two elsewhere: a third of this pass's time is the multi-instance and
# fault files, which mostly wait (spawned servers starting, heartbeats, failovers); with two slots
# both were often waiting at once while the cores idled (docs/performance.md, "CI time").
# The Redis Cluster pass runs beside it, into its own log (printed when both have ended): both mostly
# wait on spawned servers, failovers and heartbeats, and together they keep the cores busy
# (docs/performance.md, "CI time").
if $run_cluster; then (cluster_pass) & fi
if $run_postgres; then
  run_ava postgres TEST_DB=postgres TEST_DATABASE_URL="$PG_URL" TEST_REDIS_URL="$REDIS" -- --concurrency=3 "${db_patterns[@]}"
fi
wait
tally_check "responses against the OpenAPI document" "responses that do not match the OpenAPI document (above)"
if $run_postgres; then tally postgres; fi
if $run_cluster; then
  cat "$LOG.rediscluster.txt"
  tally rediscluster
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
