import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import test from 'ava';

function which(bin: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
}

test('docker-compose.yml is a valid compose file with two instances behind a load balancer', (t) => {
  if (!which('docker-compose')) {
    if (process.env.CI === 'true') return t.fail('docker-compose (Debian package) is required under CI to validate the compose file');
    t.log('SKIPPED: docker-compose is not installed (apt-get install docker-compose)');
    return t.pass();
  }
  const out = execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], { encoding: 'utf8' });
  for (const service of ['postgres:', 'redis:', 'app1:', 'app2:', 'nginx:']) t.true(out.includes(`  ${service}`), service);
  t.regex(out, /DATABASE_URL: postgres:\/\//);
  t.regex(out, /REDIS_URL: redis:\/\//);
});

test('the compose file trusts exactly one proxy, and that nginx sets X-Forwarded-For instead of appending', (t) => {
  const compose = readFileSync('docker-compose.yml', 'utf8');
  const nginx = readFileSync('deploy/nginx.conf', 'utf8');
  // Every instance's TRUST_PROXY is the hop count 1 (test/hostile/spoofedAddress.test.ts runs this nginx in front of it).
  t.deepEqual(compose.match(/TRUST_PROXY:.*$/gm), ['TRUST_PROXY: "1"']);
  t.regex(nginx, /proxy_set_header X-Forwarded-For \$remote_addr;/);
  t.notRegex(nginx, /\$proxy_add_x_forwarded_for;/, 'appending keeps what the client wrote');
});
