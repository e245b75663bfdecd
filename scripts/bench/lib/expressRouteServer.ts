/**
 * bench:gc's smallest case: one Express route answering JSON, on Node's own server
 * (`http.createServer(app)`, what Express's app.listen does) or, with BORN_PROTOTYPES=1, on the
 * service's (src/http/appServer.ts: requests born with the app's prototypes).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from '../../../src/http/appServer';
import { answerOldGeneration } from './child';

const app = express();
app.get('/ping', (_req, res) => void res.json({ ok: true }));
const server = process.env.BORN_PROTOTYPES === '1' ? createAppServer(app) : http.createServer(app);
await answerOldGeneration();
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pid: process.pid }));
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
