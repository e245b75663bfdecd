import type { HttpResponse } from './http';
import type { TestServer } from './server';
import type { NewUser } from '../api/rolls.support';

/** The people of a privacy test: a room's owner (who does not roll), three participants and a stranger. */
export interface Cast {
  owner: NewUser;
  roller: NewUser;
  whisperee: NewUser;
  bystander: NewUser;
  stranger: NewUser;
  slug: string;
  passcode: string | null;
  /** A participant's id in the room. */
  pid: (u: NewUser) => number;
}

/**
 * A room owned by `owner` (private unless `isPublic`), joined by the roller, a whisperee and a
 * bystander; the stranger never joins. `check` sees the room's creation answer (assertions of the caller).
 */
export async function seatCast(
  server: TestServer,
  options: { isPublic?: boolean; roomBody?: Record<string, unknown>; check?: (created: HttpResponse) => void } = {},
): Promise<Cast> {
  const isPublic = options.isPublic ?? false;
  const [owner, roller, whisperee, bystander, stranger] = await Promise.all(Array.from({ length: 5 }, () => server.newUser()));
  const created = await owner!.api.post('/room', { name: 'Audit table', is_public: isPublic, ...options.roomBody });
  options.check?.(created);
  if (created.status !== 201) throw new Error(`room creation failed: ${created.status} ${created.text}`);
  const { slug, passcode } = created.body.data as { slug: string; passcode: string | null };
  for (const u of [roller!, whisperee!, bystander!]) {
    const joined = await u.api.post(`/room/${slug}/participant`, passcode ? { passcode } : {});
    if (joined.status !== 200) throw new Error(`join failed: ${joined.status} ${joined.text}`);
  }
  const room = (await owner!.api.get(`/room/${slug}`)).body.data as { participants: { id: number; user: { uuid: string } }[] };
  const pid = (u: NewUser) => room.participants.find((p) => p.user.uuid === u.user.uuid)!.id;
  return { owner: owner!, roller: roller!, whisperee: whisperee!, bystander: bystander!, stranger: stranger!, slug, passcode, pid };
}
