import { execFileSync, spawnSync } from 'node:child_process';
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
