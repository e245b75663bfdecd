import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';

const which = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;

/** docker-compose.yml with its metrics lines uncommented, as an operator turning them on would. */
function withMetricsOn(compose: string): string {
  const lines = compose.split('\n');
  const out: string[] = [];
  let inPrometheus = false;
  for (const line of lines) {
    if (/^\s*# METRICS_PORT:/.test(line)) {
      out.push(line.replace('# ', ''));
      continue;
    }
    if (/^ {2}# prometheus:$/.test(line)) inPrometheus = true;
    else if (inPrometheus && !/^ {2}# /.test(line)) inPrometheus = false;
    out.push(inPrometheus ? line.replace(/^ {2}# /, '  ') : line);
  }
  return out.join('\n');
}

test('the commented Prometheus service, once uncommented, is valid and scrapes both instances on METRICS_PORT', (t) => {
  const compose = fs.readFileSync('docker-compose.yml', 'utf8');
  const on = withMetricsOn(compose);
  t.not(on, compose, 'there is something to uncomment');
  const port = /METRICS_PORT: "(\d+)"/.exec(on)?.[1];
  t.truthy(port, 'the instances get a METRICS_PORT');
  const scrapeConfig = fs.readFileSync('deploy/prometheus.yml', 'utf8');
  for (const instance of ['app1', 'app2']) t.true(scrapeConfig.includes(`"${instance}:${port}"`), `Prometheus scrapes ${instance} on ${port}`);
  t.regex(scrapeConfig, /metrics_path: \/metrics/);
});

// Without docker-compose the validation is reported as skipped (ava counts it so), except under CI where it fails.
const composeTitle = 'docker-compose validates the compose file with the Prometheus service uncommented';
if (!which('docker-compose') && process.env.CI === 'true') {
  test(`${composeTitle} (docker-compose is required under CI)`, (t) =>
    t.fail('docker-compose (Debian package) is required under CI to validate the compose file'));
} else if (!which('docker-compose')) {
  test.skip(`${composeTitle} (skipped: docker-compose is not installed; apt-get install docker-compose)`, () => {});
} else {
  test(composeTitle, (t) => {
    const on = withMetricsOn(fs.readFileSync('docker-compose.yml', 'utf8'));
    const port = /METRICS_PORT: "(\d+)"/.exec(on)?.[1];
    t.truthy(port, 'the instances get a METRICS_PORT');
    // Written beside the original, so that its relative paths (./deploy/...) resolve the same.
    const file = path.join(process.cwd(), `.compose-metrics-${process.pid}.yml`);
    fs.writeFileSync(file, on);
    try {
      const out = execFileSync('docker-compose', ['-f', file, 'config'], { encoding: 'utf8', env: { ...process.env, TMPDIR: os.tmpdir() } });
      t.true(out.includes('  prometheus:'), 'the prometheus service');
      t.regex(out, /prometheus\.yml:\/etc\/prometheus\/prometheus\.yml/);
      t.is(out.match(new RegExp(`METRICS_PORT: ['"]?${port}`, 'g'))?.length, 2, 'both instances serve metrics');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
}
