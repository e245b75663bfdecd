// npm run build: the server, the migration command and the operators' CLI as JavaScript, so production
// runs no TypeScript compiler (dist/main.mjs, dist/migrate.mjs, dist/cli.mjs). Packages stay imports of
// node_modules; the project's own modules are bundled. The browser scripts are not built here: the
// server bundles them from src/ on first use, as in development (src/lib/sourceFiles.ts), so src/ ships
// beside dist/. Under a second; `npm start`, `npm run migrate` and `npm run cli` run it first.
//
// A file whose bytes would not change is not written: in the image (Dockerfile) dist/ is built once and
// belongs to root, and `npm run cli` there then writes nothing. Three bundles rather than shared chunks,
// so a build under a running server never removes a file that server may still load.
import { build } from 'esbuild';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/main.ts', migrate: 'scripts/migrate.ts', cli: 'scripts/cli.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  write: false,
  logLevel: 'warning',
});
await mkdir(path.join(root, 'dist'), { recursive: true });
for (const file of result.outputFiles) {
  const before = await readFile(file.path).catch(() => null);
  if (!before || !before.equals(file.contents)) await writeFile(file.path, file.contents);
}
