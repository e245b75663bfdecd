import type { TestServer } from '../helpers/server';

/** Shared by the room and participant API tests (not a test file itself). */

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const SLUG = /^[a-z0-9]{16}$/;

/** A real 1x1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
/** The start of a GIF: enough for the magic-byte check. */
export const GIF = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([1, 0, 1, 0, 0x80, 0, 0])]);

export type NewUser = Awaited<ReturnType<TestServer['newUser']>>;

/** A user and a room it created (body as given). */
export async function userWithRoom(server: TestServer, body: Record<string, unknown> = {}) {
  const owner = await server.newUser();
  const res = await owner.api.post('/room', body);
  if (res.status !== 201) throw new Error(`room creation failed: ${res.status} ${res.text}`);
  return { owner, room: res.body.data, slug: res.body.data.slug as string };
}

/** multipart body with one file in `field`. */
export function fileForm(data: Buffer, field = 'bg_file_path', filename = 'bg.png', type = 'image/png') {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(data)], { type }), filename);
  return form;
}
