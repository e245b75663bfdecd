import { builtinDefinition } from '../dice';
import { AppError } from '../errors';
import { requireRoomBySlug } from '../rooms/access';
import { resolverFor } from '../rolls/create';
import { latestThemeDice } from '../themes/rollable';
import { dieFigures, type DieFigures } from './figures';
import { authorizeRoomStats } from './policy';
import { countFaces, MAX_FACE_ROWS, type StatsFilter, type StatsScope } from './store/counts';

export type { StatsFilter };

export interface Stats {
  rolls: number;
  dice: DieFigures[];
}

/** 422: more kinds of dice (times their faces) than one answer lists. */
export class TooManyFacesError extends AppError {
  constructor() {
    super(422, 'unprocessable', `These rolls hold more than ${MAX_FACE_ROWS} different faces: ask for one die type at a time (?type=d20).`, [
      { path: 'query.type', message: 'name one die type' },
    ]);
  }
}

/** GET /room/{slug}/stats: the room's dice as `user` may see them (participants only). */
export async function readRoomStats(user: { id: number }, slug: string, filter: StatsFilter): Promise<Stats> {
  const room = await requireRoomBySlug(slug);
  authorizeRoomStats(room, user.id);
  return statsOf({ roomId: room.id, viewerId: user.id }, filter);
}

/** GET /user/stats: every value of the user's own rolls, in rooms or not. */
export function readUserStats(user: { id: number }, filter: Omit<StatsFilter, 'rollerUuid'>): Promise<Stats> {
  return statsOf({ userId: user.id }, filter);
}

async function statsOf(scope: StatsScope, filter: StatsFilter): Promise<Stats> {
  const { faces, rolls } = await countFaces(scope, filter);
  if (faces.length > MAX_FACE_ROWS) throw new TooManyFacesError();
  // Faces and face order as the roll itself resolved them (rolls/create.ts), from each theme's latest version.
  const themes = await latestThemeDice(faces.map((f) => f.theme));
  return { rolls, dice: dieFigures(faces, resolverFor(themes), builtinDefinition) };
}
