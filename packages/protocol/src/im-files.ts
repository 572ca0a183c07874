/** Chat files of Easemob's Web SDK (contract 6.8): the upload's answer and the download's query. */
import { Type, type Static } from 'typebox';

export const ImFileParams = Type.Object({ org: Type.String(), app: Type.String(), uuid: Type.String({ minLength: 1, maxLength: 64 }) });
export type ImFileParams = Static<typeof ImFileParams>;

/** One uploaded file as Easemob answers it: the id to build the URL from and the secret that opens it. */
export const ImFileEntity = Type.Object(
  { uuid: Type.String(), type: Type.Literal('chatfile'), 'share-secret': Type.String() },
  { examples: [{ uuid: '5f1c9a0e2b7d4c3a9e8f6d5c4b3a2918', type: 'chatfile', 'share-secret': 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi' }] },
);
export type ImFileEntity = Static<typeof ImFileEntity>;

/** The download's query: the file's share secret (without a token); the SDK's other flags are ignored. */
export const ImFileQuery = Type.Object({
  'share-secret': Type.Optional(Type.String({ maxLength: 128 })),
  'em-redirect': Type.Optional(Type.String({ maxLength: 16 })),
  thumbnail: Type.Optional(Type.String({ maxLength: 16 })),
  vframe: Type.Optional(Type.String({ maxLength: 16 })),
});
export type ImFileQuery = Static<typeof ImFileQuery>;

/** A group's or chat room's shared file (`/chatgroups/{id}/share_files/{file_id}`, the same under `/chatrooms`). */
export const ImSharedFileParams = Type.Object({
  org: Type.String(),
  app: Type.String(),
  id: Type.String({ pattern: '^\\d{1,20}$' }),
  file_id: Type.String({ minLength: 1, maxLength: 64 }),
});
export type ImSharedFileParams = Static<typeof ImSharedFileParams>;

/** A page of a group's shared files, as Easemob: `pagesize` beyond 1000 answers 1000. */
export const ImSharedFilesQuery = Type.Object({
  pagenum: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Page number from 1 (default 1)' })),
  pagesize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Files per page, at most 1000 answered (default 1000)' })),
});
export type ImSharedFilesQuery = Static<typeof ImSharedFilesQuery>;

const FILE_ID = '5f1c9a0e2b7d4c3a9e8f6d5c4b3a2918';

/** One shared file in a group's list (Easemob's fields; `file_owner` is `@ppAdmin` for the app's uploads). */
export const ImSharedFile = Type.Object(
  { file_id: Type.String(), file_name: Type.String(), file_owner: Type.String(), file_size: Type.Integer(), created: Type.Integer() },
  { examples: [{ file_id: FILE_ID, file_name: 'plan.pdf', file_owner: 'ann', file_size: 52311, created: 1767225600000 }] },
);
export type ImSharedFile = Static<typeof ImSharedFile>;

/** The upload's answer: the file's fields and where it is downloaded. */
export const ImSharedFileUploaded = Type.Object(
  {
    file_url: Type.String(),
    group_id: Type.String(),
    file_name: Type.String(),
    created: Type.Integer(),
    file_id: Type.String(),
    file_size: Type.Integer(),
  },
  {
    examples: [{ file_url: `https://parley.example.com/acme/chat/chatgroups/7263027429605377/share_files/${FILE_ID}`, group_id: '7263027429605377', file_name: 'plan.pdf', created: 1767225600000, file_id: FILE_ID, file_size: 52311 }],
  },
);
export type ImSharedFileUploaded = Static<typeof ImSharedFileUploaded>;

/** The deletion's answer. */
export const ImSharedFileDeleted = Type.Object(
  { group_id: Type.String(), file_id: Type.String(), result: Type.Boolean() },
  { examples: [{ group_id: '7263027429605377', file_id: FILE_ID, result: true }] },
);
export type ImSharedFileDeleted = Static<typeof ImSharedFileDeleted>;
