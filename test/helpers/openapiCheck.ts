/**
 * Every response a suite run recorded (test/openapi/record.ts) against the OpenAPI document: exit 1 on
 * a mismatch, or when nothing was recorded.
 *
 *   npx tsx test/helpers/openapiCheck.ts [DIR]      (DIR: test-artifacts/openapi-responses)
 *
 * `npm test` runs it built (scripts/build-tests.mjs), beside the PostgreSQL pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkRecords, type ResponseRecord } from './openapi';

const dir = process.argv[2] ?? 'test-artifacts/openapi-responses';
const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')) : [];
const records = files.flatMap((f) =>
  fs
    .readFileSync(path.join(dir, f), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ResponseRecord),
);
const problems = checkRecords(records);
const unique = [...new Set(problems)];
console.log(
  `${records.length} responses from ${files.length} test workers (a test file or a group of them each) checked against the OpenAPI document: ${unique.length} problems`,
);
for (const p of unique.slice(0, 200)) console.log(`  ${p}`);
process.exit(records.length === 0 || unique.length > 0 ? 1 : 0);
