import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The installed stock dddice SDK (the `dddice-js` package). */
export const SDK_PACKAGE = path.dirname(createRequire(import.meta.url).resolve('dddice-js'));

/**
 * One of the SDK's builds, its host pointed at a server on `localhost:port`, the way docs/sdk.md tells
 * operators to: APP_URL (REST), WEBSOCKETS_URI and wsPort (Pusher protocol; the host name "localhost"
 * is the one the SDK speaks plain ws to). Every rewritten string must be there, or the build is not the
 * one this was written against and the caller hears so.
 */
export function sdkBuildPointedAt(build: string, port: number): string {
  let source = fs.readFileSync(path.join(SDK_PACKAGE, build), 'utf8');
  for (const [from, to] of [
    ['APP_URL:"https://dddice.com"', `APP_URL:${JSON.stringify(`http://localhost:${port}`)}`],
    ['WEBSOCKETS_URI:"ws.dddice.com"', 'WEBSOCKETS_URI:"localhost"'],
    ['wsPort:6001', `wsPort:${port}`],
  ] as const) {
    if (!source.includes(from)) throw new Error(`${build}: "${from}" not found (not dddice-js 0.19.34-974?)`);
    source = source.replaceAll(from, to);
  }
  return source;
}

/**
 * A directory holding the package as `node_modules/dddice-js` (its package.json and the given builds,
 * pointed at the server) and the package's own tests beside it in `tests/`, copied byte for byte:
 * `require('dddice-js')` in them finds the pointed copy.
 */
export function installPointedSdk(dir: string, builds: readonly string[], port: number): string {
  const target = path.join(dir, 'node_modules', 'dddice-js');
  fs.mkdirSync(target, { recursive: true });
  fs.copyFileSync(path.join(SDK_PACKAGE, 'package.json'), path.join(target, 'package.json'));
  for (const build of builds) fs.writeFileSync(path.join(target, build), sdkBuildPointedAt(build, port));
  fs.cpSync(path.join(SDK_PACKAGE, 'tests'), path.join(dir, 'tests'), { recursive: true });
  return dir;
}
