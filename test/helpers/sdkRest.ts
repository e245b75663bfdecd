import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ThreeDDiceAPI } from 'dddice-js';

/**
 * The stock dddice SDK (dddice-js 0.19.34-974, its Node build) for its REST calls only, pointed at a test
 * server the way docs/sdk.md tells operators to: its APP_URL rewritten to the server's URL, nothing else
 * changed. Each client is a module instance of its own: the bundle keeps the API key in its axios
 * defaults, module-wide. (test/realtime/pusher.sdk.test.ts also points its websocket at the server.)
 */
const BUNDLE = path.join(path.dirname(createRequire(import.meta.url).resolve('dddice-js')), 'dddice-latest.node.mjs');
const copies = new Map<string, string>();
let instances = 0;

function bundleFor(baseUrl: string): string {
  let copy = copies.get(baseUrl);
  if (copy) return copy;
  const from = 'APP_URL:"https://dddice.com"';
  const source = fs.readFileSync(BUNDLE, 'utf8');
  const found = source.split(from).length - 1;
  if (found !== 1) throw new Error(`${BUNDLE}: "${from}" found ${found} times, expected 1 (not dddice-js 0.19.34-974?)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dddice-sdk-rest-'));
  copy = path.join(dir, 'dddice-latest.node.mjs');
  fs.writeFileSync(copy, source.replace(from, `APP_URL:${JSON.stringify(baseUrl)}`));
  copies.set(baseUrl, copy);
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return copy;
}

/** A ThreeDDiceAPI of the stock SDK speaking REST to `baseUrl` with `key`; `roomSlug` as after connect(). */
export async function sdkRestClient(baseUrl: string, key: string, roomSlug?: string): Promise<ThreeDDiceAPI> {
  const sdk = (await import(`${pathToFileURL(bundleFor(baseUrl)).href}?rest=${++instances}`)) as typeof import('dddice-js');
  const api = new sdk.ThreeDDiceAPI(key, 'open-dddice tests');
  if (roomSlug) api.roomSlug = roomSlug;
  return api;
}
