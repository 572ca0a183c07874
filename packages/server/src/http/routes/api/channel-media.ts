import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, MediaView, TenantParams } from '@parley/protocol';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors, PUBLIC } from '../../openapi.js';
import { MediaFile, MediaParams, sendMedia, uploadedFile } from '../media.js';

/** The upload's body as documented: multipart is read by the route itself, not validated by a schema. */
const uploadBody = Type.Object(
  { file: Type.String({ format: 'binary', description: 'The file; its type is sniffed from its bytes' }) },
  { examples: [{ file: '(binary)' }] },
);

export const MEDIA_MAX_BYTES = 20 * 1024 * 1024;

/** Contract 3.3: agents upload media for replies; the file is served from a public URL. */
export const channelMediaRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  await app.register(multipart, { limits: { fileSize: MEDIA_MAX_BYTES, files: 1, fields: 5 } });

  app.post(
    '/api/tenants/:tenantId/media',
    {
      schema: {
        tags: ['conversations'],
        summary: 'Upload a file (multipart, field "file")',
        security: API_BEARER,
        consumes: ['multipart/form-data'],
        params: TenantParams,
        response: { 200: ApiEntity(MediaView), ...apiErrors(400, 401, 403, 404, 413, 415, 429) },
      },
      config: { swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: uploadBody }, url }) },
    },
    async (request) => {
      assertTenantAccess(principalOf(request), request.params.tenantId, ['admin', 'agent']);
      const part = await uploadedFile(request, 'invalid_request');
      const saved = await channel.media.save(request.params.tenantId, part.filename, part.file, () => part.file.truncated);
      if (saved === 'too_large') throw new AppError('payload_too_large', { limit: MEDIA_MAX_BYTES });
      return { status: 'OK' as const, entity: saved };
    },
  );

  // Where upload URLs pointed before they moved to /media/{id}; served alike, same headers.
  app.get(
    '/api/media/:id',
    {
      config: { public: true },
      schema: {
        tags: ['conversations'],
        summary: 'Download an uploaded file (former path of /media/{id})',
        security: PUBLIC,
        params: MediaParams,
        response: { 200: MediaFile, ...apiErrors(400, 404) },
      },
    },
    async (request, reply) => sendMedia(channel, request.params.id, reply),
  );
};
