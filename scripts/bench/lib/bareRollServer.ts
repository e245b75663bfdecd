/**
 * The baseline of bench:http: the least a roll service must do. A bare Express route that writes the
 * same rows as POST /roll (one `rolls` row and one `roll_values` row per die) in one `pg`
 * transaction, and a GET that reads them back, with no auth, validation, ORM, presenters or events.
 * Env: DATABASE_URL (migrated by the real server), BENCH_USER_ID, BENCH_ROOM_ID.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { answerMemory, answerOldGeneration } from './child';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const userId = Number(process.env.BENCH_USER_ID);
const roomId = process.env.BENCH_ROOM_ID ? Number(process.env.BENCH_ROOM_ID) : null;
const SIDES: Record<string, number> = { d4: 4, d6: 6, d8: 8, d10: 10, d12: 12, d20: 20 };

const app = express();
app.use(express.json());

app.post('/api/1.0/roll', async (req, res) => {
  const dice = (req.body?.dice ?? []) as { type: string; theme: string }[];
  const now = new Date();
  const values = dice.map((d, i) => ({
    uuid: randomUUID(),
    type: d.type.toLowerCase(),
    theme: d.theme,
    position: i,
    value: randomInt(1, (SIDES[d.type.toLowerCase()] ?? 6) + 1),
  }));
  const total = values.reduce((s, v) => s + v.value, 0);
  const uuid = randomUUID();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const roll = await client.query(
      `INSERT INTO rolls (uuid, user_id, room_id, direction, velocity, equation, total_value, is_whispered, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8, $8) RETURNING id`,
      [uuid, userId, roomId, randomInt(0, 360), 1, values.map((v) => `1${v.type}`).join('+'), total, now],
    );
    const params: unknown[] = [];
    const rows = values.map((v, i) => {
      params.push(v.uuid, roll.rows[0].id, v.position, i, v.type, v.theme, v.value, JSON.stringify(v.value), v.value, now);
      const b = i * 10;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9}, 'roll', $${b + 10}, $${b + 10})`;
    });
    await client.query(
      `INSERT INTO roll_values (uuid, roll_id, position, die_index, type, theme, value, value_to_display, numeric_value, origin, created_at, updated_at) VALUES ${rows.join(', ')}`,
      params,
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  res.status(201).json({
    type: 'roll',
    data: { uuid, total_value: total, created_at: now.toISOString(), values: values.map((v) => ({ uuid: v.uuid, type: v.type, value: v.value })) },
  });
});

app.get('/api/1.0/roll/:uuid', async (req, res) => {
  const roll = await pool.query('SELECT id, uuid, total_value, equation, created_at FROM rolls WHERE uuid = $1', [req.params.uuid]);
  if (!roll.rows[0]) return void res.status(404).json({ type: 'error', data: { code: 'not_found' } });
  const values = await pool.query('SELECT uuid, type, value FROM roll_values WHERE roll_id = $1 ORDER BY position', [roll.rows[0].id]);
  res.json({ type: 'roll', data: { ...roll.rows[0], id: undefined, values: values.rows } });
});

answerMemory();
// bench:gc only: its 20 ms sampling is no other benchmark's cost.
if (process.env.BENCH_OLD_GENERATION === '1') await answerOldGeneration();
const server = app.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pid: process.pid });
});
const stop = () => server.close(() => void pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('disconnect', stop);
