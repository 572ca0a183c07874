/**
 * Pure encoding and decoding of msync frames: an `MSync` envelope whose `payload` holds the
 * command's own message (Provision, CommSyncUL/DL, CommUnreadDL, CommNotice, Logout). Decoding
 * never throws anything but a FrameError, whatever the bytes.
 */
import type protobuf from 'protobufjs';
import type { KeyValue } from './key-values.js';
import { Command, pb } from './schema.js';

export interface Jid {
  appKey?: string;
  name?: string;
  domain?: string;
  clientResource?: string;
}

export interface Status {
  errorCode: number;
  reason?: string;
}

export interface MsyncFrame {
  command: number;
  guid?: Jid;
  auth?: string;
  payload?: Uint8Array;
}

export interface ProvisionIn {
  osType?: number;
  resource?: string;
  deviceUuid?: string;
  sessionId?: string;
  version?: string;
}

export interface MetaIn {
  id: string;
  from?: Jid;
  to?: Jid;
  ns: number;
  payload?: Uint8Array;
  /** ROUTE_ALL 0 (absent), ROUTE_ONLINE 1 (for online receivers only), ROUTE_DIRECT 2. */
  routetype?: number;
  ext?: KeyValue[];
}

export interface SyncUp {
  meta?: MetaIn;
  key?: string;
  queue?: Jid;
}

export interface ContentIn {
  type?: number;
  text?: string;
  latitude?: number;
  longitude?: number;
  address?: string;
  displayName?: string;
  remotePath?: string;
  secretKey?: string;
  fileLength?: number;
  action?: string;
  params?: KeyValue[];
  duration?: number;
  size?: { width?: number; height?: number };
  thumbnailRemotePath?: string;
  thumbnailSecretKey?: string;
  customEvent?: string;
  customExts?: KeyValue[];
}

export interface MessageBodyIn {
  type?: number;
  from?: Jid;
  to?: Jid;
  contents?: ContentIn[];
  ext?: KeyValue[];
  /** The message a receipt, recall or edit is about (uint64 as a decimal string). */
  ackMessageId?: string;
  msgConfig?: { allowGroupAck?: boolean };
  ackContent?: string;
  /** JSON text (edits: `{edit_msg: ...}`). */
  meta?: string;
  editMessageId?: string;
  /** BODY 1, BODY_AND_EXT 2. */
  editScope?: number;
}

export interface MucBodyIn {
  mucId?: Jid;
  operation?: number;
  isChatroom?: boolean;
}

/** A meta the server sends: uint64 fields as decimal strings. */
export interface MetaOut {
  id: string;
  from?: Jid;
  to?: Jid;
  timestamp: number | string;
  ns: number;
  payload?: Uint8Array;
  ext?: KeyValue[];
}

export class FrameError extends Error {
  override name = 'FrameError';
}

const READ = { longs: String, enums: Number, bytes: Uint8Array as unknown as typeof Array, defaults: false } as const;

function read<T>(type: protobuf.Type, bytes: Uint8Array | undefined, what: string): T {
  try {
    return type.toObject(type.decode(bytes ?? new Uint8Array()), READ) as T;
  } catch (error) {
    throw new FrameError(`${what} does not decode: ${(error as Error).message}`);
  }
}

function write(type: protobuf.Type, value: Record<string, unknown>): Uint8Array {
  return type.encode(type.fromObject(value)).finish();
}

export function decodeFrame(bytes: Uint8Array): MsyncFrame {
  const frame = read<Partial<MsyncFrame>>(pb.MSync, bytes, 'MSync frame');
  // proto2 leaves a field at its default (SYNC, 0) off the wire.
  return { ...frame, command: frame.command ?? Command.SYNC };
}

export const decodeProvision = (bytes: Uint8Array | undefined): ProvisionIn => read(pb.Provision, bytes, 'Provision');
export const decodeSyncUp = (bytes: Uint8Array | undefined): SyncUp => read(pb.CommSyncUL, bytes, 'CommSyncUL');
export const decodeMessageBody = (bytes: Uint8Array | undefined): MessageBodyIn => read(pb.MessageBody, bytes, 'MessageBody');
export const decodeMucBody = (bytes: Uint8Array | undefined): MucBodyIn => read(pb.MUCBody, bytes, 'MUCBody');

const frame = (command: number, payload: Uint8Array): Uint8Array => write(pb.MSync, { version: 0, command, payload });

/** The answer to a provision: OK with the client's own resource, or a refusal. */
export function encodeProvisionReply(status: Status, resource?: string): Uint8Array {
  return frame(Command.PROVISION, write(pb.Provision, { status, ...(resource ? { resource } : {}) }));
}

/** The answer to an UNREAD (heartbeat): the queues holding messages and how many. */
export function encodeUnreadReply(queues: ReadonlyArray<{ queue: Jid; n: number }>, timestamp: number): Uint8Array {
  return frame(Command.UNREAD, write(pb.CommUnreadDL, { status: { errorCode: 0 }, unread: queues, timestamp: String(timestamp) }));
}

export interface SyncDown {
  status?: Status;
  metaId?: string;
  serverId?: string;
  metas?: MetaOut[];
  nextKey?: string;
  queue?: Jid;
  isLast?: boolean;
  timestamp?: number;
}

export function encodeSyncDown(down: SyncDown): Uint8Array {
  const { timestamp, metas, ...rest } = down;
  return frame(
    Command.SYNC,
    write(pb.CommSyncDL, {
      ...rest,
      ...(metas ? { metas: metas.map((m) => ({ ...m, timestamp: String(m.timestamp) })) } : {}),
      ...(timestamp === undefined ? {} : { timestamp: String(timestamp) }),
    }),
  );
}

export function encodeNotice(queue: Jid): Uint8Array {
  return frame(Command.NOTICE, write(pb.CommNotice, { queue }));
}

export function encodeLogoutReply(status: Status): Uint8Array {
  return frame(Command.LOGOUT, write(pb.Logout, { status }));
}

export const encodeMessageBody = (body: Record<string, unknown>): Uint8Array => write(pb.MessageBody, body);

/** One Meta on its own (history roaming answers them base64-encoded). */
export const encodeMeta = (meta: MetaOut): Uint8Array => write(pb.Meta, { ...meta, timestamp: String(meta.timestamp) });

/** For tests and tools: the client side of the protocol. */
export const clientCodec = {
  frame: (command: number, fields: Record<string, unknown>, payload?: Uint8Array): Uint8Array =>
    write(pb.MSync, { version: 0, command, ...fields, ...(payload ? { payload } : {}) }),
  provision: (fields: Record<string, unknown>): Uint8Array => write(pb.Provision, fields),
  syncUp: (fields: Record<string, unknown>): Uint8Array => write(pb.CommSyncUL, fields),
  messageBody: (fields: Record<string, unknown>): Uint8Array => write(pb.MessageBody, fields),
  decodeProvision: (bytes: Uint8Array | undefined) => read<{ status?: Status; resource?: string }>(pb.Provision, bytes, 'Provision'),
  decodeSyncDown: (bytes: Uint8Array | undefined) =>
    read<{ status?: Status; metaId?: string; serverId?: string; metas?: Array<MetaOut & { payload?: Uint8Array }>; nextKey?: string; queue?: Jid; isLast?: boolean; timestamp?: string }>(
      pb.CommSyncDL,
      bytes,
      'CommSyncDL',
    ),
  decodeUnread: (bytes: Uint8Array | undefined) => read<{ unread?: Array<{ queue: Jid; n: number }>; timestamp?: string }>(pb.CommUnreadDL, bytes, 'CommUnreadDL'),
  decodeNotice: (bytes: Uint8Array | undefined) => read<{ queue?: Jid }>(pb.CommNotice, bytes, 'CommNotice'),
};
export const encodeRosterBody = (body: Record<string, unknown>): Uint8Array => write(pb.RosterBody, body);
export const encodeMucBody = (body: Record<string, unknown>): Uint8Array => write(pb.MUCBody, body);
