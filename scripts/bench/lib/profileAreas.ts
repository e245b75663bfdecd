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

/** FILE and top (how many rows per table) from the command line, or the usage line and exit 2. */
export function profileArgs(usage: string): { file: string; top: number } {
  const file = process.argv[2];
  if (!file) {
    console.error(usage);
    process.exit(2);
  }
  return { file, top: Number(process.argv[3] ?? 25) };
}

/** A table of the `top` largest entries of `m`: share of `total`, the amount as `format` writes it, the key. */
export function printShares(title: string, m: Map<string, number>, total: number, top: number, format: (amount: number) => string): void {
  console.log(`\n${title}`);
  for (const [k, amount] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((amount / total) * 100).toFixed(1).padStart(5)}%  ${format(amount)}  ${k}`);
}
