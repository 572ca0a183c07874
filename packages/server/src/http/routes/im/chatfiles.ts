import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ImEntitiesEnvelope, ImFileEntity, ImFileParams, ImFileQuery } from '@parley/protocol';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { imEntities } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { tooMany } from '../../auth-failures.js';
import { bearerToken } from '../../plugins/bearer.js';
import { IM_TOKEN, imErrors, PUBLIC } from '../../openapi.js';
import { MediaFile, sendStoredFile, uploadedFile } from '../media.js';
import { chargeApp, imAppOf } from './context.js';
import type { ImLimits } from './send-limits.js';

const tags = ['im'];

/** The upload's body as documented: multipart is read by the route itself, not validated by a schema. */
const uploadBody = Type.Object({ file: Type.String({ format: 'binary', description: 'The file; its type is sniffed from its bytes' }) }, { examples: [{ file: '(binary)' }] });

export interface ChatFilesOptions {
  im: ImModule;
  /** The app's limit (uploads, downloads with a token) and the downloads per client IP. */
  limits: ImLimits;
  /** Largest file, bytes (PARLEY_IM_FILE_MAX_MB). */
  maxBytes: number;
}

/**
 * Contract 6.8, Easemob's chat files: `POST /chatfiles` (any token of the app; the
 * `restrict-access` header is accepted, every file is restricted) and `GET /chatfiles/{uuid}`
 * with the file's `share-secret` or a token of the app, at most PARLEY_IM_FILE_DOWNLOAD_RATE_LIMIT
 * a minute per client IP (checked first: a download needs no token, so nothing else bounds it). The SDK's part-upload routes are not
 * served (404): the SDK then uploads in one request.
 */
export const imChatFileRoutes: FastifyPluginAsyncTypebox<ChatFilesOptions> = async (app, { im, limits, maxBytes }) => {
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 5 } });

  app.post(
    '/chatfiles',
    {
      config: { imAuth: 'user', swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: uploadBody }, url }) },
      schema: {
        tags,
        summary: 'Upload a chat file (multipart, field "file")',
        security: IM_TOKEN,
        consumes: ['multipart/form-data'],
        response: { 200: ImEntitiesEnvelope(ImFileEntity), ...imErrors(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const part = await uploadedFile(request, 'illegal_argument');
      const saved = await im.files.save(imApp.id, part.filename, part.file, () => part.file.truncated);
      if (saved === 'too_large') throw new AppError('payload_too_large', { limit: maxBytes });
      return imEntities(request, imApp, [{ uuid: saved.uuid, type: 'chatfile' as const, 'share-secret': saved.shareSecret }]);
    },
  );

  app.get(
    '/chatfiles/:uuid',
    {
      // A browser's <img> sends no token: the share secret opens the file; a token, when given, is checked.
      config: { imAuth: 'public' },
      schema: {
        tags,
        summary: 'Download a chat file (its share-secret, or a token of the app)',
        security: [...PUBLIC, ...IM_TOKEN],
        params: ImFileParams,
        querystring: ImFileQuery,
        response: { 200: MediaFile, ...imErrors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const retryAfter = await limits.fileDownloads.take(request.clientAddress);
      if (retryAfter > 0) throw tooMany('reach_limit', retryAfter);
      const imApp = imAppOf(request);
      const token = bearerToken(request);
      if (token !== undefined) await im.apps.authenticate(imApp, token);
      await chargeApp(limits, imApp);
      const found = await im.files.open(imApp.id, request.params.uuid, { authorized: token !== undefined, shareSecret: request.query['share-secret'] });
      if (!found) throw new AppError('service_resource_not_found', { resource: `File ${request.params.uuid}` });
      return sendStoredFile(reply, found.record, found.stream);
    },
  );
};
