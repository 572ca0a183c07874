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
