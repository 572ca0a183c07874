/**
 * The msync wire schema (proto2, package `easemob.pb`): only the messages and fields the gateway
 * reads or writes, written from the observed wire format (field numbers and types are the
 * protocol's; see docs/im.md). Built into a protobufjs Root once, at load time. Fields a client
 * sends that are not listed here are skipped on decode.
 */
import protobuf from 'protobufjs';

type Fields = Record<string, { type: string; id: number; rule?: 'repeated' }>;
const f = (id: number, type: string): { type: string; id: number } => ({ type, id });
const many = (id: number, type: string) => ({ type, id, rule: 'repeated' as const });
const message = (fields: Fields, nested?: Record<string, unknown>) => ({ fields, ...(nested ? { nested } : {}) });

/** `MSync.command`. */
export const Command = { SYNC: 0, UNREAD: 1, NOTICE: 2, PROVISION: 3, LOGOUT: 4 } as const;
/** `Meta.ns`. */
export const Namespace = { STATISTIC: 0, CHAT: 1, MUC: 2, ROSTER: 3, CONFERENCE: 4, NOTIFY: 5, QUERY: 6 } as const;
/** `MessageBody.type`. */
export const MessageType = { NORMAL: 0, CHAT: 1, GROUPCHAT: 2, CHATROOM: 3, READ_ACK: 4, DELIVER_ACK: 5, RECALL: 6, CHANNEL_ACK: 7, EDIT: 8 } as const;
/** `Content.type`. */
export const ContentType = { TEXT: 0, IMAGE: 1, VIDEO: 2, LOCATION: 3, VOICE: 4, FILE: 5, COMMAND: 6, CUSTOM: 7, COMBINE: 8 } as const;
/** `KeyValue.type`. */
export const ValueType = { BOOL: 1, INT: 2, UINT: 3, LLINT: 4, FLOAT: 5, DOUBLE: 6, STRING: 7, JSON_STRING: 8 } as const;
/** `Status.errorCode` (20, RESOURCE_CHANGED, is understood by the SDK but not in the enum). */
export const ErrorCode = {
  OK: 0,
  FAIL: 1,
  UNAUTHORIZED: 2,
  WRONG_PARAMETER: 4,
  TOKEN_EXPIRED: 6,
  PERMISSION_DENIED: 7,
  UNKNOWN_COMMAND: 9,
  PB_PARSER_ERROR: 10,
  IM_FORBIDDEN: 12,
  TOO_MANY_DEVICES: 13,
  USER_MUTED: 15,
  PERMISSION_DENIED_EXTERNAL: 19,
} as const;
/**
 * `MUCBody.operation`: JOIN and LEAVE a client sends for chat rooms; the others the gateway sends
 * as notices, each raising the SDK's `onGroupEvent` / `onChatroomEvent` with the operation named
 * in the comment.
 */
export const MucOperation = {
  JOIN: 2,
  LEAVE: 3,
  /** destroy */
  DESTROY: 1,
  /** requestToJoin (to the owner) */
  APPLY: 4,
  /** acceptRequest (to the applicant) */
  APPLY_ACCEPT: 5,
  /** joinPublicGroupDeclined (to the applicant) */
  APPLY_DECLINE: 6,
  /** inviteToJoin (to the invitee, when the group needs their confirmation) */
  INVITE: 7,
  /** acceptInvite (to the inviter) */
  INVITE_ACCEPT: 8,
  /** rejectInvite (to the inviter) */
  INVITE_DECLINE: 9,
  /** removeMember (to the removed user) */
  KICK: 10,
  /** updateInfo */
  UPDATE: 14,
  /** memberPresence */
  PRESENCE: 17,
  /** memberAbsence */
  ABSENCE: 18,
  /** directJoined */
  DIRECT_JOINED: 19,
  /** changeOwner */
  ASSIGN_OWNER: 20,
  /** setAdmin */
  ADD_ADMIN: 21,
  /** removeAdmin */
  REMOVE_ADMIN: 22,
  /** muteMember (its end in `ext`: user_mute_time) */
  ADD_MUTE: 23,
  /** unmuteMember */
  REMOVE_MUTE: 24,
  /** updateAnnouncement (the text in `reason`) */
  UPDATE_ANNOUNCEMENT: 25,
  /** uploadFile (a shared file) */
  UPLOAD_FILE: 27,
  /** deleteFile (a shared file) */
  DELETE_FILE: 28,
  /** addUserToAllowlist */
  ADD_ALLOWLIST: 29,
  /** removeAllowlistMember */
  REMOVE_ALLOWLIST: 30,
  /** muteAllMembers */
  MUTE_ALL: 31,
  /** unmuteAllMembers */
  UNMUTE_ALL: 32,
} as const;
/** `RosterBody.operation`, as the SDK turns them into events: ADD onContactInvited, REMOVE onContactDeleted, ACCEPT onContactAdded, DECLINE onContactRefuse, REMOTE_ACCEPT onContactAgreed. */
export const RosterOperation = { ADD: 2, REMOVE: 3, ACCEPT: 4, DECLINE: 5, REMOTE_ACCEPT: 8 } as const;

/** `Meta.routetype`: ONLINE is the SDK's `deliverOnlineOnly` (typing indicators). */
export const RouteType = { ALL: 0, ONLINE: 1, DIRECT: 2 } as const;

const DESCRIPTOR = {
  nested: {
    easemob: {
      nested: {
        pb: {
          nested: {
            JID: message({ appKey: f(1, 'string'), name: f(2, 'string'), domain: f(3, 'string'), clientResource: f(4, 'string') }),
            Status: message({ errorCode: f(1, 'int32'), reason: f(2, 'string') }),
            KeyValue: {
              oneofs: { value: { oneof: ['varintValue', 'floatValue', 'doubleValue', 'stringValue'] } },
              fields: { key: f(1, 'string'), type: f(2, 'int32'), varintValue: f(3, 'int64'), floatValue: f(4, 'float'), doubleValue: f(5, 'double'), stringValue: f(6, 'string') },
            },
            MSync: message({ version: f(1, 'int32'), guid: f(2, 'JID'), auth: f(3, 'string'), command: f(8, 'int32'), payload: f(9, 'bytes'), deviceId: f(10, 'uint32') }),
            Provision: message({
              osType: f(1, 'int32'),
              version: f(2, 'string'),
              compressType: many(5, 'int32'),
              encryptType: many(6, 'int32'),
              status: f(8, 'Status'),
              deviceUuid: f(9, 'string'),
              isManualLogin: f(10, 'bool'),
              deviceName: f(12, 'string'),
              resource: f(13, 'string'),
              auth: f(14, 'string'),
              authToken: f(18, 'string'),
              sessionId: f(20, 'string'),
              reason: f(21, 'string'),
              protocolCompressType: many(22, 'int32'),
            }),
            Logout: message({ sessionId: f(1, 'string'), reason: f(2, 'string'), status: f(3, 'Status') }),
            Meta: message({
              id: f(1, 'uint64'),
              from: f(2, 'JID'),
              to: f(3, 'JID'),
              timestamp: f(4, 'uint64'),
              ns: f(5, 'int32'),
              payload: f(6, 'bytes'),
              routetype: f(7, 'int32'),
              ext: many(8, 'KeyValue'),
            }),
            MetaQueue: message({ queue: f(1, 'JID'), n: f(2, 'uint32') }),
            CommSyncUL: message({ meta: f(1, 'Meta'), key: f(2, 'uint64'), queue: f(3, 'JID') }),
            CommSyncDL: message({
              status: f(1, 'Status'),
              metaId: f(2, 'uint64'),
              serverId: f(3, 'uint64'),
              metas: many(4, 'Meta'),
              nextKey: f(5, 'uint64'),
              queue: f(6, 'JID'),
              isLast: f(7, 'bool'),
              timestamp: f(8, 'uint64'),
            }),
            CommNotice: message({ queue: f(1, 'JID') }),
            CommUnreadDL: message({ status: f(1, 'Status'), unread: many(2, 'MetaQueue'), timestamp: f(3, 'uint64') }),
            MessageBody: message(
              {
                type: f(1, 'int32'),
                from: f(2, 'JID'),
                to: f(3, 'JID'),
                contents: many(4, 'Content'),
                ext: many(5, 'KeyValue'),
                ackMessageId: f(6, 'uint64'),
                msgConfig: f(7, 'MessageConfig'),
                ackContent: f(8, 'string'),
                meta: f(9, 'string'),
                editMessageId: f(11, 'uint64'),
                editScope: f(12, 'int32'),
              },
              {
                MessageConfig: message({ allowGroupAck: f(1, 'bool') }),
                Content: message(
                  {
                    type: f(1, 'int32'),
                    text: f(2, 'string'),
                    latitude: f(3, 'double'),
                    longitude: f(4, 'double'),
                    address: f(5, 'string'),
                    displayName: f(6, 'string'),
                    remotePath: f(7, 'string'),
                    secretKey: f(8, 'string'),
                    fileLength: f(9, 'int32'),
                    action: f(10, 'string'),
                    params: many(11, 'KeyValue'),
                    duration: f(12, 'int32'),
                    size: f(13, 'Size'),
                    thumbnailRemotePath: f(14, 'string'),
                    thumbnailSecretKey: f(15, 'string'),
                    customEvent: f(19, 'string'),
                    customExts: many(20, 'KeyValue'),
                  },
                  { Size: message({ width: f(1, 'double'), height: f(2, 'double') }) },
                ),
              },
            ),
            RosterBody: message({ operation: f(1, 'int32'), from: f(3, 'JID'), to: many(4, 'JID'), reason: f(5, 'string') }),
            MUCBody: message(
              {
                mucId: f(1, 'JID'),
                operation: f(2, 'int32'),
                from: f(3, 'JID'),
                to: many(4, 'JID'),
                reason: f(6, 'string'),
                isChatroom: f(7, 'bool'),
                status: f(8, 'Status'),
                mucName: f(11, 'string'),
                mucMemberCount: f(13, 'int32'),
                ext: f(14, 'string'),
              },
              { Status: message({ errorCode: f(1, 'int32'), description: f(2, 'string'), chatroomInfo: f(3, 'string') }) },
            ),
          },
        },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(DESCRIPTOR as protobuf.INamespace);
const type = (name: string): protobuf.Type => root.lookupType(`easemob.pb.${name}`);

/** The message types, looked up once. */
export const pb = {
  MSync: type('MSync'),
  Provision: type('Provision'),
  Logout: type('Logout'),
  CommSyncUL: type('CommSyncUL'),
  CommSyncDL: type('CommSyncDL'),
  CommNotice: type('CommNotice'),
  CommUnreadDL: type('CommUnreadDL'),
  MessageBody: type('MessageBody'),
  MUCBody: type('MUCBody'),
  Meta: type('Meta'),
  RosterBody: type('RosterBody'),
} as const;
