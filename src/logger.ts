import pino from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs on stdout; one line per event, with a request id where there is one. */
export function createLogger(level: string = 'info'): Logger {
  return pino({
    level,
    base: { service: 'dice', pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'authorization', 'passcode'], censor: '[redacted]' },
  });
}
