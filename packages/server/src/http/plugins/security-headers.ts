import type { FastifyInstance } from 'fastify';

/**
 * Every response Fastify sends carries a Content-Security-Policy and `nosniff`. Routes that
 * serve pages set their own policy (the console, the API docs, media) and keep it; everything
 * else is data, which a browser must never run or frame, whatever it contains.
 */
export const DATA_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Headers the send-message lane and hijacked replies (event streams) write themselves. */
export const SECURITY_HEADERS = Object.freeze({
  'content-security-policy': DATA_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
});

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', DATA_CONTENT_SECURITY_POLICY);
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
}

/** Swagger UI sets style attributes as it expands operations; styles cannot run script. */
const DOCS_STYLE_SRC = "style-src 'self' 'unsafe-inline'";

/**
 * The Swagger UI at /docs: `@fastify/swagger-ui`'s static CSP (its own scripts only), without
 * `upgrade-insecure-requests` (Parley is often reached over plain HTTP on a private network),
 * with inline styles, and never framed.
 */
export function docsContentSecurityPolicy(generated: string): string {
  return generated
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '' && d !== 'upgrade-insecure-requests')
    .map((d) => (d.startsWith('frame-ancestors') ? "frame-ancestors 'none'" : d.startsWith('style-src ') ? DOCS_STYLE_SRC : d))
    .join('; ');
}
