/**
 * What a theme file that declares a huge decoded size costs a browser, before and after the asset
 * limits (src/themes/assetLimits), in Debian's Chromium (playwright-core), same page, same run:
 *
 *   npx tsx scripts/bench/themeAssets.ts
 *
 * "loader" hands the file to what the board used to call directly (GLTFLoader, FBXLoader,
 * createImageBitmap) and, for glTF, sizes the model as the board does (Box3.setFromObject), timed to
 * its end (done or thrown; uploading to the GPU, which the board would do next, is not included); "check" is assetCost, what the board and
 * the upload now run first, which refuses the file. The baseline is the same for the glTF pyramid the
 * tests draw. The glTF bomb's memory is also measured in Node (ArrayBuffers held after GLTFLoader.parse).
 */
import { build } from 'esbuild';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { launchChromium } from '../../test/browser/chromium';
import { bigPng, fbxBomb, gltfBomb } from '../../test/fixtures/bombs';
import { glbPyramid } from '../../test/fixtures/gltf';

const ENTRY = `
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { FBXLoader } from 'three/examples/jsm/loaders/FBXLoader.js';
import { Box3 } from 'three';
import { assetCost } from './src/themes/assetLimits/index.ts';
window.bench = async (how, kind, bytes) => {
  const data = new Uint8Array(bytes);
  const t0 = performance.now();
  let outcome = 'done';
  try {
    if (how === 'check') { const c = assetCost(kind, data); outcome = typeof c === 'string' ? 'refused' : 'accepted'; }
    else if (kind === 'fbx') new FBXLoader().parse(data.buffer, '');
    else if (kind === 'png') (await createImageBitmap(new Blob([data]))).close();
    else {
      const gltf = await new Promise((resolve, reject) => new GLTFLoader().parse(data.buffer, '', resolve, reject));
      // What the board does next, before drawing: size the model to the die (dice/materials.ts).
      new Box3().setFromObject(gltf.scene);
    }
  } catch (err) { outcome = 'threw ' + String(err && err.message || err).slice(0, 60); }
  return { ms: performance.now() - t0, outcome };
};`;

async function nodeGltfBytes(data: Buffer): Promise<number> {
  const before = process.memoryUsage().arrayBuffers;
  const ab = data.buffer.slice(data.byteOffset, data.byteOffset + data.length) as ArrayBuffer;
  const gltf = await new Promise<unknown>((resolve, reject) => new GLTFLoader().parse(ab, '', resolve, reject));
  const held = process.memoryUsage().arrayBuffers - before;
  void gltf;
  return held;
}

const bundled = await build({
  stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'js' },
  bundle: true,
  write: false,
  format: 'iife',
  platform: 'browser',
  logLevel: 'silent',
});
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><title>bench</title>');
  await page.addScriptTag({ content: bundled.outputFiles[0]!.text });
  const files: [string, string, Buffer][] = [
    ['glTF pyramid (baseline)', 'glb', await glbPyramid()],
    ['glTF bomb, 210 B', 'gltf', gltfBomb()],
    ['FBX bomb, 64 KB', 'fbx', fbxBomb()],
    ['PNG 8192x8192, 10 KB', 'png', bigPng(8192)],
  ];
  const run = (how: string, kind: string, data: Buffer) =>
    page.evaluate(
      ([h, k, b]) => (window as unknown as { bench: (h: string, k: string, b: readonly number[]) => Promise<{ ms: number; outcome: string }> }).bench(h, k, b),
      [how, kind, [...data]] as const,
    );
  const median = async (times: number, how: string, kind: string, data: Buffer) => {
    const runs = [];
    for (let i = 0; i < times; i++) runs.push(await run(how, kind, data));
    return runs.sort((a, b) => a.ms - b.ms)[times >> 1]!;
  };
  await run('loader', 'glb', files[0]![2]);
  const baseline = await median(5, 'loader', 'glb', files[0]![2]);
  console.log(`baseline: GLTFLoader.parse of the glTF pyramid, median of 5: ${baseline.ms.toFixed(2)} ms; checks: median of 5; loaders: one run each`);
  console.log(`Chromium ${browser.version()}, ${new Date().toISOString().slice(0, 10)}`);
  for (const [name, kind, data] of files) {
    const loader = await run('loader', kind, data);
    const check = await median(5, 'check', kind, data);
    console.log(
      `${name.padEnd(26)} loader ${loader.ms.toFixed(1).padStart(9)} ms (${loader.outcome}), ${(loader.ms / baseline.ms).toFixed(1)}x the baseline; check ${check.ms.toFixed(2)} ms (${check.outcome}), ${(check.ms / baseline.ms).toFixed(3)}x`,
    );
  }
  console.log(
    `Node: GLTFLoader.parse of the glTF bomb holds ${((await nodeGltfBytes(gltfBomb())) / 1e9).toFixed(2)} GB of ArrayBuffers; the pyramid ${(await nodeGltfBytes(await glbPyramid())).toLocaleString('en')} bytes`,
  );
} finally {
  await browser.close();
}
