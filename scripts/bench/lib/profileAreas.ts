/** Where a profile frame lives, for grouping: e.g. `sequelize`, `src/rolls/create.ts`, `(garbage collector)`, `node:internal/...`. */
export function area(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const src = /\/work\/[^/]+\/((?:src|scripts|test)\/.*)$/.exec(url) ?? /((?:src|scripts)\/.*)$/.exec(url);
  if (src) return src[1]!;
  if (url.startsWith('node:')) return url.replace(/^node:internal\/(\w+).*/, 'node:$1');
  return url;
}

