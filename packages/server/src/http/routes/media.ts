import type { Readable } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { tooMany } from '../auth-failures.js';
import type { FixedWindowLimiter } from '../fixed-window.js';
import { imErrors, PUBLIC } from '../openapi.js';
import { AppError } from '../../kernel/errors.js';
import type { ChannelModule } from '../../modules/channel/index.js';
import { servedAs } from '../../modules/media/media-type.js';

/**
 * Uploaded media are written by agents (or anyone holding an agent's token) and opened by
 * admins in the console's origin, so a file must never run as a page there: only allow-listed
 * types are shown inline, everything else is a download, the browser may not guess another
 * type, and the document is sandboxed with no sources even if a browser renders it.
 */
export const MEDIA_CONTENT_SECURITY_POLICY = "default-src 'none'; sandbox; frame-ancestors 'none'";

export const MediaParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** A file as served: its bytes, with the Content-Type it was stored with (errors stay JSON). */
export const MediaFile = {
  description: 'The file, with the Content-Type it was stored with',
  content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }), example: '(the bytes of the file)' } },
};

export async function sendMedia(channel: ChannelModule, id: string, reply: FastifyReply): Promise<FastifyReply> {
  const found = await channel.media.open(id);
  if (!found) throw new AppError('not_found', { resource: `Media ${id}` });
  return sendStoredFile(reply, found.record, found.stream);
}

/**
 * The upload's multipart field `file`, for the media store (which sniffs the bytes: the part's own
 * Content-Type is ignored). 415 when the request is not multipart; `badInput` (the envelope's code
 * for bad input) when its first file is not a field named `file`.
 */
export async function uploadedFile(request: FastifyRequest, badInput: 'invalid_request' | 'illegal_argument'): Promise<MultipartFile> {
  if (!request.isMultipart()) throw new AppError('unsupported_media_type', { contentType: request.headers['content-type'] ?? '(none)' });
  const part = await request.file();
  if (!part || part.fieldname !== 'file') throw new AppError(badInput, { detail: 'file: a multipart field named "file" is required' });
  return part;
}

/** A file of the media store as served to anyone who may read it: sniffed type, nosniff, sandboxed. */
export function sendStoredFile(reply: FastifyReply, file: { filename: string; contentType: string; size: number }, stream: Readable): FastifyReply {
  const { type, disposition } = servedAs(file.contentType);
  // RFC 5987 value: encodeURIComponent leaves ' ( ) * unescaped, which the syntax does not allow.
  const name = encodeURIComponent(file.filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return reply
    .type(type)
    .header('content-length', file.size)
    .header('content-disposition', `${disposition}; filename*=UTF-8''${name}`)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', MEDIA_CONTENT_SECURITY_POLICY)
    // The URL is public by design: customers' servers and pages load it from their own origins.
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('referrer-policy', 'no-referrer')
    .send(stream);
}

/**
 * `GET /media/{id}`: uploads, on a path of their own outside /api and /console. `limit` counts
 * downloads per client IP (429 `reach_limit` with Retry-After beyond it).
 */
export async function mediaRoutes(app: FastifyInstance, opts: { channel: ChannelModule; limit: FixedWindowLimiter }): Promise<void> {
  app.get<{ Params: { id: string } }>(
    '/media/:id',
    {
      onRequest: async (request) => {
        const retryAfter = await opts.limit.take(request.clientAddress);
        if (retryAfter > 0) throw tooMany('reach_limit', retryAfter);
      },
      schema: {
        tags: ['conversations'],
        summary: 'Download an uploaded file (public, by unguessable id)',
        security: PUBLIC,
        params: MediaParams,
        response: { 200: MediaFile, ...imErrors(400, 404, 429) },
      },
    },
    async (request, reply) => sendMedia(opts.channel, request.params.id, reply),
  );
}
