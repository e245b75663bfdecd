import type { TestServer } from '../helpers/server';
import { db } from '../../src/db';

/** Shared by the roll API tests (not a test file itself). */

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type NewUser = Awaited<ReturnType<TestServer['newUser']>>;
export type Participant = { id: number; color: string; user: { uuid: string } };

/**
 * A room with three players: the roller (who made the room), a participant the roller whispers to, a
 * bystander participant; and an outsider who is not in the room.
 */
export async function table(server: TestServer, body: Record<string, unknown> = {}) {
  const [roller, whisperee, bystander, outsider] = await Promise.all([server.newUser(), server.newUser(), server.newUser(), server.newUser()]);
  const created = await roller.api.post('/room', { name: 'Table', ...body });
  if (created.status !== 201) throw new Error(`room creation failed: ${created.status} ${created.text}`);
  const slug = created.body.data.slug as string;
  const passcode = created.body.data.passcode as string | null;
  for (const u of [whisperee, bystander]) {
    const joined = await u.api.post(`/room/${slug}/participant`, passcode ? { passcode } : {});
    if (joined.status !== 200) throw new Error(`join failed: ${joined.status} ${joined.text}`);
  }
  const room = (await roller.api.get(`/room/${slug}`)).body.data as { participants: Participant[] };
  const participantId = (u: NewUser) => room.participants.find((p) => p.user.uuid === u.user.uuid)!.id;
  return { roller, whisperee, bystander, outsider, slug, room, participantId };
}

/** POST /roll, failing loudly when it is not a 201 (for set-up, not for the assertion under test). */
export async function rollOk(user: NewUser, body: Record<string, unknown>) {
  const res = await user.api.post('/roll', body);
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data as Roll;
}

export interface Value {
  uuid: string;
  type: string;
  theme: string;
  value: number | null;
  value_to_display: unknown;
  label: string | null;
  is_hidden: boolean;
  is_user_value: boolean;
  is_visible: boolean;
  is_cleared: boolean;
  is_dropped: boolean;
  created_at: string;
  updated_at: string;
}

export interface Roll {
  uuid: string;
  direction: number;
  velocity: number;
  user: { uuid: string };
  room: { slug: string; participants: Participant[] } | null;
  values: Value[];
  operator: unknown;
  equation: string;
  total_value: number;
  external_id: string | null;
  label: string | null;
  participants: Participant[];
  created_at: string;
  updated_at: string;
}

/** How many rolls the user with this uuid has stored (the test server runs in this process). */
export async function storedRollCount(userUuid: string): Promise<number> {
  const [row] = await db().sql.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM rolls r JOIN users u ON u.id = r.user_id WHERE u.uuid = $1', [userUuid]);
  return Number(row!.n);
}
