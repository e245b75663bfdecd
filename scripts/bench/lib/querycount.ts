/**
 * Database statements per request: sends `n` requests one at a time and reads PostgreSQL's own
 * counters for the database (pg_stat_database: xact_commit counts every autocommitted statement and
 * every explicit transaction; tup_inserted/tup_fetched what they touched). Used by bench:http.
 */
import pg from 'pg';

export interface QueryCount {
  transactions: number;
  inserted: number;
  fetched: number;
}

async function counters(url: string): Promise<QueryCount> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  // The statistics collector reports with a delay; force a fresh snapshot of what has been flushed.
  await c.query('SELECT pg_stat_clear_snapshot()');
  const name = new URL(url).pathname.slice(1);
  const row = (await c.query('SELECT xact_commit, tup_inserted, tup_fetched FROM pg_stat_database WHERE datname = $1', [name])).rows[0];
  await c.end();
  return { transactions: Number(row.xact_commit), inserted: Number(row.tup_inserted), fetched: Number(row.tup_fetched) };
}

/** Per-request averages over `n` sequential calls of `send` (the counting connections' own statements excluded). */
export async function perRequest(url: string, n: number, send: () => Promise<unknown>): Promise<QueryCount> {
  // Let what ran before (a load run) flush its statistics first: PostgreSQL 15 backends flush at most
  // once a second, and when idle after 10 s.
  await new Promise((r) => setTimeout(r, 11_000));
  const before = await counters(url);
  for (let i = 0; i < n; i++) await send();
  // PostgreSQL 15 backends flush their statistics at most once a second, and when idle after 10 s.
  await new Promise((r) => setTimeout(r, 11_000));
  const after = await counters(url);
  const overhead = 2; // the two counting sessions themselves
  return {
    transactions: (after.transactions - before.transactions - overhead) / n,
    inserted: (after.inserted - before.inserted) / n,
    fetched: (after.fetched - before.fetched) / n,
  };
}
