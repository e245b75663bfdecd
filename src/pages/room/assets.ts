import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { bundleScript } from '../../lib/scriptBundles';
import { sourceFile } from '../../lib/sourceFiles';

/**
 * The room page's script (main.ts: Preact, bundled with esbuild as the board is, once per process on
 * first use, kept in memory), its style sheet, and the stream address's first script
 * (src/pages/stream/moveKey.ts, a classic script), each with a content hash for `?v=`.
 */

const ENTRY = sourceFile('pages/room/main.ts');
const STYLE = sourceFile('pages/room/room.css');
const STATS_STYLE = sourceFile('pages/client/stats.css');
const STREAM = sourceFile('pages/stream/moveKey.ts');

export interface RoomPageAssets {
  files: Record<'room.js' | 'room.css' | 'stream.js', string>;
  version: Record<'room.js' | 'room.css' | 'stream.js', string>;
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

let assets: Promise<RoomPageAssets> | null = null;

export function roomPageAssets(): Promise<RoomPageAssets> {
  // The page's style sheet, then the statistics' die cards (shared with the board).
  assets ??= Promise.all([
    bundleScript(ENTRY),
    Promise.all([readFile(STYLE, 'utf8'), readFile(STATS_STYLE, 'utf8')]).then((sheets) => sheets.join('\n')),
    bundleScript(STREAM, 'iife'),
  ])
    .then(([js, css, stream]) => ({
      files: { 'room.js': js, 'room.css': css, 'stream.js': stream },
      version: { 'room.js': hash(js), 'room.css': hash(css), 'stream.js': hash(stream) },
    }))
    .catch((err) => {
      // Not cached: the next page view tries again.
      assets = null;
      throw err;
    });
  return assets;
}

export const isRoomPageAsset = (file: string): file is keyof RoomPageAssets['files'] => file === 'room.js' || file === 'room.css' || file === 'stream.js';
