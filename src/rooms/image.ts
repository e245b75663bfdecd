/**
 * Room background images: the only accepted kinds, recognised by their first bytes (never by the
 * file name or the declared type, which the client controls).
 */
export const BACKGROUND_MAX_BYTES = 5 * 1024 * 1024;
export const BACKGROUND_FIELD = 'bg_file_path';

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

const startsWith = (buf: Uint8Array, bytes: number[], offset = 0) => buf.length >= offset + bytes.length && bytes.every((b, i) => buf[offset + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The image type of `data` by its magic bytes, or null when it is none of png, jpeg, gif, webp. */
export function sniffImageType(data: Uint8Array): ImageType | null {
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(data, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(data, ascii('GIF87a')) || startsWith(data, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(data, ascii('RIFF')) && startsWith(data, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}
