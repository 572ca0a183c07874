import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../kernel/errors.js';

/**
 * The web console (packages/console) served at /console, with `/` leading there.
 *
 * The bundle's files are listed once at boot: only those are ever read from disk, so no request
 * path reaches the file system. Any other path under /console is a client-side route and gets
 * index.html (deep links work), except under assets/, where a missing file is a real 404.
 * Without a built bundle the console answers 503 instead of failing the whole server.
 */

/** Everything the console needs comes from this origin; images of order cards may be remote. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' blob: https: http:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const ASSETS_DIR = 'assets/';

function listFiles(root: string): Set<string> {
  const files = new Set<string>();
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const relative = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    files.add(relative);
  }
  return files;
}

export async function consoleRoutes(app: FastifyInstance, opts: { dir: string }): Promise<void> {
  const hide = { hide: true };
  app.get('/', { schema: hide }, async (_request, reply) => reply.redirect('/console', 302));

  const root = path.resolve(opts.dir);
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    app.log.warn({ dir: root }, 'web console bundle not found; /console answers 503 until it is built');
    const unavailable = async () => {
      throw new AppError('service_unavailable', {
        detail: `the web console is not built (no index.html in ${root}); run "npm run build" and restart`,
      });
    };
    app.get('/console', { schema: hide }, unavailable);
    app.get('/console/*', { schema: hide }, unavailable);
    return;
  }

  const files = listFiles(root);
  // serve:false: this plugin only lends reply.sendFile; the routes below decide what is served.
  await app.register(fastifyStatic, { root, serve: false, cacheControl: false, index: false, dotfiles: 'deny' });

  const sendIndex = (reply: FastifyReply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .sendFile('index.html');

  app.get('/console', { schema: hide }, async (_request, reply) => sendIndex(reply));
  app.get<{ Params: { '*': string } }>('/console/*', { schema: hide }, async (request, reply) => {
    const file = request.params['*'];
    if (file !== 'index.html' && files.has(file)) {
      // Vite names assets by content hash, so they never change under the same URL.
      const immutable = file.startsWith(ASSETS_DIR);
      return reply
        .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .sendFile(file);
    }
    if (file.startsWith(ASSETS_DIR)) {
      const url = request.url.split('?')[0] ?? request.url;
      throw new AppError('route_not_found', { method: request.method, url });
    }
    return sendIndex(reply);
  });
}
