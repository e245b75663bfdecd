/**
 * The real server (src/server.ts startServer) as a benchmark child: configured from the environment
 * like `npm start`, it reports its URL over IPC instead of a log line, and answers memory questions.
 * Logs go to stdout at LOG_LEVEL (the benchmarks default to "warn": one JSON line per request at "info"
 * is a cost of its own, measured separately with --log-level info).
 */
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { startServer } from '../../../src/server';
import { roomNamespaceCount } from '../../../src/realtime/connection/namespaces';
import { answerMemory, answerOldGeneration, answerPauses, answerProfiling, answerSlowRequests } from './child';

const config = loadConfig();
const server = await startServer(config, createLogger(config.logLevel));
answerMemory(() => ({ sockets: server.io.engine.clientsCount, pusher: server.realtime.pusher?.size ?? 0, namespaces: roomNamespaceCount(server.io) }));
answerProfiling();
// Only when asked: the listener it adds to every request would be the benchmark's own cost otherwise.
if (process.env.BENCH_TRACE_SLOW_MS) answerSlowRequests(server.http);
await answerPauses();
// bench:gc only: its 20 ms sampling is no other benchmark's cost.
if (process.env.BENCH_OLD_GENERATION === '1') await answerOldGeneration();
process.send?.({ type: 'ready', url: server.url, pid: process.pid });

const stop = async (why: string) => {
  console.error(`bench server stopping: ${why}`);
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('disconnect', () => void stop('the benchmark process went away (IPC closed)'));
