// Reports which test servers are reachable: prints "postgres=ok|<reason>" and "redis=ok|<reason>".
// PostgreSQL must also allow MIN_CONNECTIONS: the PostgreSQL pass runs groups of test files, each
// file's server with its two pools (scripts/build-tests.mjs), two groups at once.
import net from 'node:net';
import pg from 'pg';

const pgUrl = process.argv[2];
const redisUrl = process.argv[3];

const MIN_CONNECTIONS = 300;

async function probePg() {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const { rows } = await client.query('SHOW max_connections');
    const allowed = Number(rows[0].max_connections);
    if (allowed < MIN_CONNECTIONS)
      return `it allows ${allowed} connections, the suite needs ${MIN_CONNECTIONS} (ALTER SYSTEM SET max_connections = ${MIN_CONNECTIONS}, then restart it; .ci/run does)`;
    return 'ok';
  } catch (err) {
    return (err.message || String(err)).replace(/\s+/g, ' ');
  } finally {
    await client.end().catch(() => {});
  }
}

function probeRedis() {
  const url = new URL(redisUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port || 6379), url.hostname);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('no answer within 3 s');
    }, 3000);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      clearTimeout(timer);
      socket.end();
      resolve(d.toString().startsWith('+PONG') ? 'ok' : d.toString().trim());
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      resolve(e.message);
    });
  });
}

const [p, r] = await Promise.all([probePg(), probeRedis()]);
console.log(`postgres=${p}`);
console.log(`redis=${r}`);
