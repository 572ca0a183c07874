/**
 * The pages' own Content-Security-Policies. Data answers get theirs from the pipeline's
 * security-headers step (http/pipeline.ts), which keeps a policy a route set itself.
 */

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
