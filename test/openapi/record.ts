/**
 * Preload that records every response of every test server of a test run, for the suite-wide check
 * of the OpenAPI document (no test file needs to know):
 *
 *   rm -rf test-artifacts/openapi-responses
 *   OPENAPI_RECORD_DIR=test-artifacts/openapi-responses npx ava --node-arguments="--import=./test/openapi/record.ts" test/api/
 *   npx tsx test/helpers/openapiCheck.ts test-artifacts/openapi-responses
 *
 * It wraps `http.createServer` (src/server.ts calls it through the default export), so each server the
 * process creates gets the recorder (test/openapi/recorder.ts: light, since every test process loads it).
 */
import http from 'node:http';
import { recordResponsesToDir } from './recorder';

const dir = process.env.OPENAPI_RECORD_DIR;
if (dir) {
  const original = http.createServer;
  (http as { createServer: unknown }).createServer = function createServer(this: unknown, ...args: unknown[]) {
    const server = (original as (...a: unknown[]) => http.Server).apply(this, args);
    recordResponsesToDir(server, dir);
    return server;
  };
}
