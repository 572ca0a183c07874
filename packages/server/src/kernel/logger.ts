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

/**
 * Query parameter names that carry a credential (`?access_token=` is the IM socket's documented
 * auth and is accepted on every IM route): their values never reach a logged URL.
 */
const CREDENTIAL_PARAM = /token|secret|passw|pwd|signature|^sig$|hmac|auth|credential|api_?key|^key$|^code$/i;

function paramName(pair: string): string {
  const end = pair.indexOf('=');
  const raw = (end === -1 ? pair : pair.slice(0, end)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** `url` with the value of every credential-bearing query parameter replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const pairs = url.slice(query + 1).split('&');
  for (let i = 0; i < pairs.length; i++) {
    const name = paramName(pairs[i] as string);
    if (CREDENTIAL_PARAM.test(name)) pairs[i] = `${(pairs[i] as string).split('=')[0]}=[redacted]`;
  }
  return `${url.slice(0, query)}?${pairs.join('&')}`;
}

interface RawRequest {
  method?: string;
  url?: string;
  host?: string;
  clientAddress?: string;
  headers?: { host?: string };
  socket?: { remoteAddress?: string; remotePort?: number };
}

/**
 * Fastify's request serializer, with the URL's credentials redacted. The address is the client's
 * behind trusted proxies (`clientAddress`, http/client-address.ts); without it, the socket's peer.
 */
export function serializeRequest(req: RawRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url ?? ''),
    host: req.host ?? req.headers?.host,
    remoteAddress: req.clientAddress ?? req.socket?.remoteAddress,
    remotePort: req.socket?.remotePort,
  };
}

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'parley' },
    serializers: { req: serializeRequest as (req: unknown) => unknown },
  };
}
