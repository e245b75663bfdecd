import test from 'ava';
import { timestamp, ts } from '../../src/http/time';

test('timestamps are ISO 8601 UTC with six fractional digits, from Dates and from strings', (t) => {
  t.is(ts(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 123))), '2026-01-02T03:04:05.123000Z');
  t.is(timestamp('2026-11-22 18:30:00.120 +00:00'), '2026-11-22T18:30:00.120000Z');
  t.is(timestamp('2026-11-22T20:30:00.000+02:00'), '2026-11-22T18:30:00.000000Z');
  t.is(timestamp(null), null);
  t.is(timestamp(undefined), null);
  t.is(timestamp('not a date'), null);
  t.is(timestamp(new Date(Number.NaN)), null);
});

test('a Date changed in place is formatted as it is now (formatting is remembered by instant, not by object)', (t) => {
  const date = new Date(Date.UTC(2026, 5, 1));
  t.is(ts(date), '2026-06-01T00:00:00.000000Z');
  date.setUTCFullYear(2027);
  t.is(ts(date), '2027-06-01T00:00:00.000000Z');
  t.is(ts(new Date(Date.UTC(2026, 5, 1))), '2026-06-01T00:00:00.000000Z');
});

test('many distinct instants (past the remembered 100,000) all format correctly', (t) => {
  const base = Date.UTC(2026, 0, 1);
  for (let i = 0; i < 120_000; i += 1) {
    const text = ts(new Date(base + i));
    if (text !== `${new Date(base + i).toISOString().slice(0, -1)}000Z`) return t.fail(`instant ${i}: ${text}`);
  }
  t.is(ts(new Date(base + 7)), '2026-01-01T00:00:00.007000Z');
});
