import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import test from 'ava';
import { MAX_ASSETS, MAX_TEXT_BYTES, MAX_THEME_BYTES } from '../../src/themes/manifest/limits';

function which(bin: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
}

// Without docker-compose the test is reported as skipped (ava counts it so), except under CI.
const missing = !which('docker-compose') && process.env.CI !== 'true';
(missing ? test.skip : test)(
  `docker-compose.yml is a valid compose file with two instances behind a load balancer${missing ? ' (skipped: docker-compose is not installed; apt-get install docker-compose)' : ''}`,
  (t) => {
    if (!which('docker-compose')) return t.fail('docker-compose (Debian package) is required under CI to validate the compose file');
    const out = execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], { encoding: 'utf8' });
    for (const service of ['postgres:', 'redis:', 'app1:', 'app2:', 'nginx:']) t.true(out.includes(`  ${service}`), service);
    t.regex(out, /DATABASE_URL: postgres:\/\//);
    t.regex(out, /REDIS_URL: redis:\/\//);
  },
);

test('docker-compose.yml has no obsolete `version:` key', (t) => {
  t.notRegex(fs.readFileSync('docker-compose.yml', 'utf8'), /^version:/m);
});

test("nginx's body limit lets the largest theme upload through, and not much more", (t) => {
  const conf = fs.readFileSync('deploy/nginx.conf', 'utf8');
  const match = /^\s*client_max_body_size\s+(\d+)m;/m.exec(conf);
  t.truthy(match, 'client_max_body_size in megabytes');
  const limitBytes = Number(match![1]) * 1024 * 1024;
  // The files, the three text parts, and generous multipart framing for every part.
  const largest = MAX_THEME_BYTES + 3 * MAX_TEXT_BYTES + (MAX_ASSETS + 3) * 1024;
  t.true(limitBytes >= largest, `${match![1]}m < ${largest} bytes: a valid theme would be refused by nginx with its own 413 page`);
  t.true(limitBytes - largest <= 2 * 1024 * 1024, `${match![1]}m is far above what the service accepts (${largest} bytes)`);
});

test('.dockerignore keeps dependencies, local data, test artifacts and git out of the build context', (t) => {
  const entries = fs
    .readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const entry of ['node_modules', 'data', 'test-artifacts', '.git', '.env']) t.true(entries.includes(entry), entry);
  // Nothing the Dockerfile copies is ignored.
  for (const copied of ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json']) t.false(entries.includes(copied), copied);
});

test('the compose file trusts exactly one proxy, and that nginx sets X-Forwarded-For instead of appending', (t) => {
  const compose = fs.readFileSync('docker-compose.yml', 'utf8');
  const nginx = fs.readFileSync('deploy/nginx.conf', 'utf8');
  // Every instance's TRUST_PROXY is the hop count 1 (test/hostile/spoofedAddress.test.ts runs this nginx in front of it).
  t.deepEqual(compose.match(/TRUST_PROXY:.*$/gm), ['TRUST_PROXY: "1"']);
  t.regex(nginx, /proxy_set_header X-Forwarded-For \$remote_addr;/);
  t.notRegex(nginx, /\$proxy_add_x_forwarded_for;/, 'appending keeps what the client wrote');
});
