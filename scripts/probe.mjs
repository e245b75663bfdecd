// Reports which test servers are reachable: prints "postgres=ok|<reason>" and "redis=ok|<reason>".
import net from 'node:net';
import pg from 'pg';

const pgUrl = process.argv[2];
const redisUrl = process.argv[3];

async function probePg() {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
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
