import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { bundleScript } from '../../src/lib/scriptBundles';
import { sourceFile } from '../../src/lib/sourceFiles';

const ENTRY = sourceFile('pages/stream/moveKey.ts');

function cacheDir(t: { teardown: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-scripts-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const onlyFile = (dir: string) => {
  const files = fs.readdirSync(dir);
  if (files.length !== 1) throw new Error(`one cache file expected in ${dir}, found ${files.join(', ')}`);
  return path.join(dir, files[0]!);
};

test('a bundle is kept with the hash of every input, and the next call reads it back', async (t) => {
  const dir = cacheDir(t);
  const js = await bundleScript(ENTRY, 'iife', dir);
  t.true(js.length > 100);
  const file = onlyFile(dir);
  const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { inputs: Record<string, string>; js: string };
  t.is(kept.js, js);
  t.true('src/pages/stream/moveKey.ts' in kept.inputs, Object.keys(kept.inputs).join(', '));
  t.true(Object.values(kept.inputs).every((hash) => /^[0-9a-f]{64}$/.test(hash)));
  // What is served is what the cache holds: a marked copy comes back as it is.
  fs.writeFileSync(file, JSON.stringify({ ...kept, js: `${js}/*from the cache*/` }));
  t.is(await bundleScript(ENTRY, 'iife', dir), `${js}/*from the cache*/`);
});

test('one input whose content no longer hashes the same bundles anew, and the fresh bundle replaces the kept one', async (t) => {
  const dir = cacheDir(t);
  const js = await bundleScript(ENTRY, 'iife', dir);
  const file = onlyFile(dir);
  const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { inputs: Record<string, string>; js: string };
  const input = Object.keys(kept.inputs)[0]!;
  fs.writeFileSync(file, JSON.stringify({ inputs: { ...kept.inputs, [input]: '0'.repeat(64) }, js: 'stale()' }));
  t.is(await bundleScript(ENTRY, 'iife', dir), js);
  t.is(JSON.parse(fs.readFileSync(file, 'utf8')).js, js);
});

test('a cache file cut short, or naming an input that is gone, is bundled anew', async (t) => {
  const dir = cacheDir(t);
  const js = await bundleScript(ENTRY, 'iife', dir);
  const file = onlyFile(dir);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').slice(0, 50));
  t.is(await bundleScript(ENTRY, 'iife', dir), js);
  fs.writeFileSync(file, JSON.stringify({ inputs: { 'src/no/such/file.ts': '0'.repeat(64) }, js: 'stale()' }));
  t.is(await bundleScript(ENTRY, 'iife', dir), js);
});

test('the same entry in another format is another bundle', async (t) => {
  const dir = cacheDir(t);
  await bundleScript(ENTRY, 'iife', dir);
  await bundleScript(ENTRY, 'esm', dir);
  t.is(fs.readdirSync(dir).length, 2);
});
