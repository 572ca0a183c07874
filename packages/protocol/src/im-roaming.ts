/**
 * History roaming and the server conversation list of Easemob's Web SDK (contract 6.8): the
 * bodies the SDK sends and the answers it parses.
 */
import { Type, type Static } from 'typebox';

export const RoamingParams = Type.Object({ org: Type.String(), app: Type.String(), username: Type.String({ minLength: 1, maxLength: 128 }) });
export type RoamingParams = Static<typeof RoamingParams>;

const Nullable = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** `getHistoryMessages`' body; fields the SDK sends that Parley does not read (`end`) are accepted. */
export const RoamingRequest = Type.Object(
  {
    queue: Type.String({ minLength: 1, maxLength: 200, description: '`peer@easemob.com` or `groupid@conference.easemob.com`' }),
    start: Nullable(Type.Union([Type.String({ maxLength: 64 }), Type.Integer()])),
    pull_number: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    is_positive: Type.Optional(Type.Boolean({ description: 'true: oldest first ("down"); false: newest first ("up")' })),
    msgType: Nullable(Type.String({ maxLength: 200 })),
    end: Type.Optional(Type.Unknown()),
    startTime: Nullable(Type.Integer({ minimum: 0 })),
    endTime: Nullable(Type.Integer({ minimum: 0 })),
    userId: Nullable(Type.String({ maxLength: 128 })),
  },
  { examples: [{ queue: 'ben@easemob.com', start: -1, pull_number: 20, is_positive: false, msgType: '', end: -1, startTime: null, endTime: null, userId: null }] },
);
export type RoamingRequest = Static<typeof RoamingRequest>;

export const RoamingResult = Type.Object(
  {
    msgs: Type.Array(Type.Object({ msg: Type.String({ description: 'A protobuf `Meta`, base64' }) })),
    is_last: Type.Boolean(),
    next_key: Type.String(),
  },
  { examples: [{ msgs: [{ msg: 'CJ...base64 Meta...' }], is_last: true, next_key: '1767225600000001' }] },
);
export type RoamingResult = Static<typeof RoamingResult>;
