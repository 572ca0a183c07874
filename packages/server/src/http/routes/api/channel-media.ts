import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, MediaView, TenantParams } from '@parley/protocol';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { principalOf } from '../../plugins/bearer.js';

export const MEDIA_MAX_BYTES = 20 * 1024 * 1024;

/** Contract 3.3: agents upload media for replies; the file is served from a public URL. */
export const channelMediaRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  await app.register(multipart, { limits: { fileSize: MEDIA_MAX_BYTES, files: 1, fields: 5 } });

  app.post(
    '/api/tenants/:tenantId/media',
    { schema: { tags: ['conversations'], summary: 'Upload a file (multipart, field "file")', consumes: ['multipart/form-data'], params: TenantParams, response: { 200: ApiEntity(MediaView) } } },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin', 'agent']);
      if (!request.isMultipart()) throw new AppError('unsupported_media_type', { contentType: request.headers['content-type'] ?? '(none)' });
      const part = await request.file();
      if (!part || part.fieldname !== 'file') throw new AppError('invalid_request', { detail: 'file: a multipart field named "file" is required' });
      const saved = await channel.media.save(request.params.tenantId, part.filename, part.mimetype || 'application/octet-stream', part.file, () => part.file.truncated);
      if (saved === 'too_large') throw new AppError('payload_too_large', { limit: MEDIA_MAX_BYTES });
      return { status: 'OK' as const, entity: saved };
    },
  );

  app.get(
    '/api/media/:id',
    { config: { public: true }, schema: { tags: ['conversations'], summary: 'Download an uploaded file (public, by unguessable id)', params: Type.Object({ id: Type.String({ maxLength: 64 }) }) } },
    async (request, reply) => {
      const found = await channel.media.open(request.params.id);
      if (!found) throw new AppError('not_found', { resource: `Media ${request.params.id}` });
      const name = encodeURIComponent(found.record.filename);
      return reply
        .type(found.record.contentType)
        .header('content-length', found.record.size)
        .header('content-disposition', `inline; filename*=UTF-8''${name}`)
        .header('x-content-type-options', 'nosniff')
        .send(found.stream);
    },
  );
};
