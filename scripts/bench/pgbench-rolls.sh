#!/usr/bin/env bash
# What one PostgreSQL takes of roll-shaped writes (docs/scaling.md): pgbench on a scratch database with
# the service's schema (its migrations), one roll = 1 `rolls` row + 2 `roll_values` rows, committed
# together, in two shapes:
#   tx   BEGIN; INSERT rolls RETURNING id; INSERT 2 roll_values; COMMIT  (4 round trips)
#   cte  the service's own statement on PostgreSQL (src/rolls/store/write.ts insertRollAtOnce): one
#        INSERT ... WITH r AS (INSERT INTO rolls ...) (1 round trip, atomic by itself)
# at each client count of PGBENCH_CLIENTS (default "1 8 32"), PGBENCH_SECONDS (15) each, prepared
# statements. The scratch database is dropped at the end, whatever happens.
#
#   bash scripts/bench/pgbench-rolls.sh
#   env: BENCH_DATABASE_URL (an admin database, default postgres://postgres@127.0.0.1:5432/test),
#        PGBENCH_CLIENTS, PGBENCH_SECONDS, PGBENCH_THREADS (2)
set -euo pipefail
cd "$(dirname "$0")/../.."
ADMIN_URL="${BENCH_DATABASE_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}}"
CLIENTS="${PGBENCH_CLIENTS:-1 8 32}"
SECONDS_EACH="${PGBENCH_SECONDS:-15}"
THREADS="${PGBENCH_THREADS:-2}"
NAME="dice_pgbench_$(head -c 5 /dev/urandom | od -An -tx1 | tr -d ' \n')"
URL="${ADMIN_URL%/*}/$NAME"
WORK="$(mktemp -d)"
cleanup() {
  psql "$ADMIN_URL" -qAtc "DROP DATABASE IF EXISTS $NAME WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

psql "$ADMIN_URL" -qAtc "CREATE DATABASE $NAME"
DATABASE_URL="$URL" LOG_LEVEL=warn npx tsx scripts/migrate.ts >/dev/null
psql "$URL" -qAt >/dev/null <<'SQL'
INSERT INTO users (uuid, username, name, is_registered, created_at, updated_at)
  VALUES (gen_random_uuid(), 'pgbench', 'pgbench', false, now(), now());
INSERT INTO rooms (slug, name, is_public, user_id, created_at, updated_at)
  VALUES ('pgbench', 'pgbench', true, 1, now(), now());
SQL

# The values the service writes for {"dice": [{"type": "d6"}, {"type": "d20"}]} (bench:http's roll).
VALUE_COLUMNS='uuid, roll_id, position, die_index, type, theme, value, value_to_display, numeric_value, origin, label, meta, is_hidden, is_user_value, is_visible, is_cleared, is_dropped, is_success, is_failure, is_compounded, is_penetrated, created_at, updated_at'
ROLL="INSERT INTO rolls (uuid, user_id, room_id, direction, velocity, equation, total_value, operator, label, external_id, is_whispered, created_at, updated_at) VALUES (gen_random_uuid(), 1, 1, 2.5, 0.8, '1d6+1d20', :total, NULL, NULL, NULL, false, now(), now()) RETURNING id"
value() { # $1 roll id expression, $2 position, $3 type, $4 value variable
  echo "(gen_random_uuid(), $1, $2, $2, '$3', 'standard', :$4, to_json(:$4::int), :$4, 'roll', NULL, NULL, false, false, true, false, false, false, false, false, false, now(), now())"
}
cat >"$WORK/tx.sql" <<SQL
\set a random(1, 6)
\set b random(1, 20)
\set total :a + :b
BEGIN;
$ROLL \gset
INSERT INTO roll_values ($VALUE_COLUMNS) VALUES $(value :id 0 d6 a), $(value :id 1 d20 b);
COMMIT;
SQL
cat >"$WORK/cte.sql" <<SQL
\set a random(1, 6)
\set b random(1, 20)
\set total :a + :b
WITH r AS ($ROLL) INSERT INTO roll_values ($VALUE_COLUMNS) VALUES $(value '(SELECT id FROM r)' 0 d6 a), $(value '(SELECT id FROM r)' 1 d20 b) RETURNING roll_id, id, position;
SQL

echo "pgbench-rolls: $(psql "$ADMIN_URL" -Atc 'SHOW server_version'), fsync $(psql "$ADMIN_URL" -Atc 'SHOW fsync'), synchronous_commit $(psql "$ADMIN_URL" -Atc 'SHOW synchronous_commit'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before"
printf '%-5s %8s %12s %14s %10s\n' shape clients 'rolls/s' 'latency ms' failed
for shape in tx cte; do
  for c in $CLIENTS; do
    j=$(( c < THREADS ? c : THREADS ))
    out="$(pgbench -n -M prepared -f "$WORK/$shape.sql" -c "$c" -j "$j" -T "$SECONDS_EACH" "$URL" 2>&1)" || { echo "$out"; exit 1; }
    tps="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out" | head -1)"
    lat="$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' <<<"$out")"
    failed="$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$out")"
    printf '%-5s %8s %12s %14s %10s\n' "$shape" "$c" "$tps" "$lat" "${failed:-0}"
  done
done
psql "$URL" -qAtc 'VACUUM ANALYZE rolls, roll_values' >/dev/null
echo "rows written: $(psql "$URL" -Atc "SELECT count(*) || ' rolls, ' || (SELECT count(*) FROM roll_values) || ' roll values; ' || round((pg_total_relation_size('rolls') + pg_total_relation_size('roll_values'))::numeric / count(*)) || ' bytes per roll on disk (tables + indexes)' FROM rolls"); load average $(cut -d' ' -f1-3 /proc/loadavg) after"
