import type { LoggerOptions } from 'pino';
import type { LogLevel } from '../config/index.js';

/**
 * Paths pino blanks before a line is written. Secrets and passwords never reach the logs,
 * whether they appear in headers, bodies or objects passed to the logger.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-auth-expires"]',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  '*.*.password',
  'secret',
  '*.secret',
  'clientSecret',
  '*.clientSecret',
  'client_secret',
  '*.client_secret',
  'access_token',
  '*.access_token',
  'token',
  '*.token',
];

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'parley' },
  };
}
