/**
 * A group's or chat room's shared files, as Easemob's Web SDK calls them
 * (`uploadGroupSharedFile`, `getGroupSharedFilelist`, `downloadGroupSharedFile`,
 * `deleteGroupSharedFile`, and the chat room's): `POST|GET /chatgroups/{id}/share_files`,
 * `GET|DELETE /chatgroups/{id}/share_files/{file_id}`, the same under `/chatrooms`. Any member's
 * (or the app's) token; who may delete is the service's rule (modules/im/shared-files.ts). The
 * upload is multipart (field `file`) with the chat files' size limit, in the app's media quota.
 */
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { GroupParams, ImEnvelope, ImSharedFile, ImSharedFileDeleted, ImSharedFileParams, ImSharedFilesQuery, ImSharedFileUploaded } from '@parley/protocol';
import { Type } from 'typebox';
import { AppError } from '../../../kernel/errors.js';
import { APP_ADMIN_OPERATOR } from '../../../modules/callbacks/group-ops.js';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { GroupKind } from '../../../modules/im/ports.js';
import { MAX_SHARED_PAGE, type SharedFile } from '../../../modules/im/shared-files.js';
import { IM_TOKEN, imErrors } from '../../openapi.js';
import { MediaFile, sendStoredFile, uploadedFile } from '../media.js';
import { imAppOf, operatorOf } from './context.js';

const tags = ['im'];
const security = IM_TOKEN;

/** The upload's body as documented: multipart is read by the route itself, not validated by a schema. */
const uploadBody = Type.Object({ file: Type.String({ format: 'binary', description: 'The file; its type is sniffed from its bytes' }) }, { examples: [{ file: '(binary)' }] });

export interface SharedFilesOptions {
  im: ImModule;
  /** Largest file, bytes (PARLEY_IM_FILE_MAX_MB, as chat files). */
  maxBytes: number;
}

interface Target {
  segment: 'chatgroups' | 'chatrooms';
  kind: GroupKind;
  noun: string;
  /** The SDK's methods of the group's, and of the room's. */
  sdk: (group: string, room: string) => string;
}

const TARGETS: Target[] = [
  { segment: 'chatgroups', kind: 'group', noun: 'group', sdk: (group) => `\`${group}\`` },
  { segment: 'chatrooms', kind: 'chatroom', noun: 'chat room', sdk: (_, room) => `\`${room}\`` },
];

const Listed = ImEnvelope(Type.Array(ImSharedFile, { examples: [[{ file_id: '5f1c9a0e2b7d4c3a9e8f6d5c4b3a2918', file_name: 'plan.pdf', file_owner: 'ann', file_size: 52311, created: 1767225600000 }]] }));

const listed = (file: SharedFile) => ({
  file_id: file.fileId,
  file_name: file.fileName,
  file_owner: file.owner ?? APP_ADMIN_OPERATOR,
  file_size: file.size,
  created: file.createdAt,
});

/** Where the file is downloaded: this route, under the app's path. */
const fileUrl = (request: FastifyRequest, t: Target, groupId: string, fileId: string): string => {
  const imApp = imAppOf(request);
  return `${request.protocol}://${request.host}/${encodeURIComponent(imApp.orgName)}/${encodeURIComponent(imApp.appName)}/${t.segment}/${groupId}/share_files/${fileId}`;
};

type Scope = Parameters<FastifyPluginAsyncTypebox>[0];
const memberOf = (kind: GroupKind) => ({ imAuth: { member: 'id', kind } }) as const;

export const imSharedFileRoutes: FastifyPluginAsyncTypebox<SharedFilesOptions> = async (app, { im, maxBytes }) => {
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 5 } });
  for (const t of TARGETS) {
    uploadRoute(app, im, t, maxBytes);
    readRoutes(app, im, t);
    deleteRoute(app, im, t);
  }
};

function uploadRoute(app: Scope, im: ImModule, t: Target, maxBytes: number): void {
  const { segment, kind, noun, sdk } = t;
  app.post(
    `/${segment}/:id/share_files`,
    {
      config: { ...memberOf(kind), swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: uploadBody }, url }) },
      schema: {
        tags,
        summary: `Share a file in the ${noun} (${sdk('uploadGroupSharedFile', 'uploadChatRoomSharedFile')}; multipart, field "file"; any member); the other members get \`uploadFile\``,
        security,
        consumes: ['multipart/form-data'],
        params: GroupParams,
        response: { 200: ImEnvelope(ImSharedFileUploaded), ...imErrors(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const part = await uploadedFile(request, 'illegal_argument');
      const shared = await im.sharedFiles.upload(imApp, kind, request.params.id, operatorOf(request), part.filename, part.file, () => part.file.truncated);
      if (shared === 'too_large') throw new AppError('payload_too_large', { limit: maxBytes });
      return imData(request, imApp, {
        file_url: fileUrl(request, t, request.params.id, shared.fileId),
        group_id: request.params.id,
        file_name: shared.fileName,
        created: shared.createdAt,
        file_id: shared.fileId,
        file_size: shared.size,
      });
    },
  );
}

function readRoutes(app: Scope, im: ImModule, t: Target): void {
  const { segment, kind, noun, sdk } = t;
  app.get(
    `/${segment}/:id/share_files`,
    {
      config: memberOf(kind),
      schema: {
        tags,
        summary: `The ${noun}'s shared files, newest first (${sdk('getGroupSharedFilelist', 'getChatRoomSharedFilelist')}; any member)`,
        security,
        params: GroupParams,
        querystring: ImSharedFilesQuery,
        response: { 200: Listed, ...imErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const { pagesize = MAX_SHARED_PAGE, pagenum = 1 } = request.query;
      return imData(request, imApp, (await im.sharedFiles.list(imApp, kind, request.params.id, pagesize, pagenum)).map(listed));
    },
  );

  app.get(
    `/${segment}/:id/share_files/:file_id`,
    {
      config: memberOf(kind),
      schema: {
        tags,
        summary: `Download a shared file (${sdk('downloadGroupSharedFile', 'the chat room’s by URL')}; any member)`,
        security,
        params: ImSharedFileParams,
        response: { 200: MediaFile, ...imErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const found = await im.sharedFiles.open(imAppOf(request), kind, request.params.id, request.params.file_id);
      return sendStoredFile(reply, found.record, found.stream);
    },
  );
}

function deleteRoute(app: Scope, im: ImModule, t: Target): void {
  const { segment, kind, sdk } = t;
  app.delete(
    `/${segment}/:id/share_files/:file_id`,
    {
      config: memberOf(kind),
      schema: {
        tags,
        summary: `Delete a shared file (${sdk('deleteGroupSharedFile', 'deleteChatRoomSharedFile')}; its uploader, the owner, an admin, or the app); the other members get \`deleteFile\``,
        security,
        params: ImSharedFileParams,
        response: { 200: ImEnvelope(ImSharedFileDeleted), ...imErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      await im.sharedFiles.remove(imApp, kind, request.params.id, request.params.file_id, operatorOf(request));
      return imData(request, imApp, { group_id: request.params.id, file_id: request.params.file_id, result: true });
    },
  );
}
