import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SOURCE_ROOT } from './sourceFiles';

/**
 * The browser scripts (the board, the pages) are bundled from src/ with esbuild at run time, so `npm
 * start` on a fresh clone needs no build step for them. A bundle is also kept on disk, beside the hash
 * of every file it was made from (node_modules/.cache/open-dice-scripts/): the next process whose
 * inputs still hash the same reads it back instead of bundling again. The board's bundle (three.js
 * included) costs about a second of CPU, so a restarted server serves its first board at once, and the
 * test suite's hundreds of servers bundle each script once. Reading the cache never trusts it blindly:
 * one changed byte in any input bundles anew. A cache that cannot be read or written only costs time.
 */

const PROJECT_ROOT = path.dirname(SOURCE_ROOT);
const CACHE_DIR = path.join(PROJECT_ROOT, 'node_modules/.cache/open-dice-scripts');

type Format = 'esm' | 'iife';

interface CachedBundle {
  /** Every input, by its path from the project's root, with the SHA-256 of its content. */
  inputs: Record<string, string>;
  js: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** How every browser script is built; part of the cache's key. */
const OPTIONS = {
  bundle: true,
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
} as const;

async function build(entry: string, format: Format): Promise<{ js: string; inputs: string[] }> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    ...OPTIONS,
    target: [...OPTIONS.target],
    entryPoints: [entry],
    absWorkingDir: PROJECT_ROOT,
    write: false,
    metafile: true,
    format,
    logLevel: 'silent',
  });
  return { js: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs) };
}

async function hashes(inputs: readonly string[]): Promise<Record<string, string>> {
  const contents = await Promise.all(inputs.map((input) => fs.readFile(path.join(PROJECT_ROOT, input))));
  return Object.fromEntries(inputs.map((input, i) => [input, sha256(contents[i]!)]));
}

/** The cache file of one entry and format, for this version of esbuild and these build options. */
async function cacheFile(entry: string, format: Format, cacheDir: string): Promise<string> {
  const { version } = await import('esbuild');
  const key = sha256(JSON.stringify([path.relative(PROJECT_ROOT, entry), format, version, OPTIONS]));
  return path.join(cacheDir, `${key.slice(0, 32)}.json`);
}

async function readCached(file: string): Promise<string | null> {
  try {
    const cached = JSON.parse(await fs.readFile(file, 'utf8')) as CachedBundle;
    const now = await hashes(Object.keys(cached.inputs));
    return Object.entries(cached.inputs).every(([input, hash]) => now[input] === hash) ? cached.js : null;
  } catch {
    return null; // none yet, an input gone, or a file cut short: bundle anew
  }
}

async function writeCached(file: string, bundle: CachedBundle): Promise<void> {
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Written whole under another name, then renamed: a reader never sees half a file.
    const partial = `${file}.${process.pid}.${Date.now()}`;
    await fs.writeFile(partial, JSON.stringify(bundle));
    await fs.rename(partial, file);
  } catch {
    // A read-only install: the bundle is still served, from memory.
  }
}

/**
 * `entry` (an absolute path in src/) bundled for browsers, from the disk cache when its inputs are
 * unchanged (`cacheDir` is for tests).
 */
export async function bundleScript(entry: string, format: Format = 'esm', cacheDir = CACHE_DIR): Promise<string> {
  const file = await cacheFile(entry, format, cacheDir);
  const cached = await readCached(file);
  if (cached !== null) return cached;
  const started = Date.now();
  const { js, inputs } = await build(entry, format);
  // An input changed while esbuild read it may be in the bundle as it was: such a bundle is not kept.
  // Hashed first, checked after: an edit after the check leaves hashes that no longer match, not a stale hit.
  const inputHashes = await hashes(inputs);
  const stats = await Promise.all(inputs.map((input) => fs.stat(path.join(PROJECT_ROOT, input))));
  if (stats.every((stat) => stat.mtimeMs < started - 1000)) await writeCached(file, { inputs: inputHashes, js });
  return js;
}
