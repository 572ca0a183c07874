/**
 * Message bodies between the msync `MessageBody` / `Content` and Parley's stored shape
 * (`{bodies: [{type, ...fields}], ext}`, contract 4.3), both ways. The result of `toParleyBody`
 * still goes through the same body rules as a REST send (bodies.ts).
 */
import type { ImChatType, ImMessageFrame } from '@parley/protocol';
import type { MessageBody } from '../post-send.js';
import type { StoredMessage } from '../ports.js';
import { encodeMessageBody, type ContentIn, type Jid, type MessageBodyIn, type MetaOut } from './codec.js';
import { fromKeyValues, toKeyValues } from './key-values.js';
import { ContentType, MessageType, Namespace } from './schema.js';

export const USER_DOMAIN = 'easemob.com';
export const GROUP_DOMAIN = 'conference.easemob.com';

const CHAT_TYPES: Partial<Record<number, ImChatType>> = {
  [MessageType.CHAT]: 'chat',
  [MessageType.GROUPCHAT]: 'groupchat',
  [MessageType.CHATROOM]: 'chatroom',
};

/** The chat type of a MessageBody, or undefined for acks, recalls and edits. */
export const chatTypeOf = (body: MessageBodyIn): ImChatType | undefined => CHAT_TYPES[body.type ?? MessageType.NORMAL];

const defined = (fields: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== ''));

function fileNameOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || undefined;
  } catch {
    return undefined;
  }
}

/** A Content as the `{type, ...fields}` a REST send would carry (not validated yet). */
export function toParleyBody(content: ContentIn): { type: string; [field: string]: unknown } {
  // The SDK sends no file name with an image given by URL: the URL's last path segment stands in.
  const file = { url: content.remotePath, filename: content.displayName || fileNameOf(content.remotePath), secret: content.secretKey };
  switch (content.type ?? ContentType.TEXT) {
    case ContentType.TEXT:
      return { type: 'txt', msg: content.text };
    case ContentType.IMAGE:
      return { type: 'img', ...defined({ ...file, size: content.size ? { width: content.size.width ?? 0, height: content.size.height ?? 0 } : undefined }) };
    case ContentType.VOICE:
      return { type: 'audio', ...defined({ ...file, length: content.duration ?? 0 }) };
    case ContentType.VIDEO:
      return {
        type: 'video',
        ...defined({ ...file, length: content.duration ?? 0, thumb: content.thumbnailRemotePath, thumb_secret: content.thumbnailSecretKey, file_length: content.fileLength }),
      };
    case ContentType.FILE:
      return { type: 'file', ...defined({ ...file, file_length: content.fileLength }) };
    case ContentType.LOCATION:
      return { type: 'loc', lat: content.latitude ?? 0, lng: content.longitude ?? 0, addr: content.address ?? '' };
    case ContentType.COMMAND:
      return { type: 'cmd', action: content.action };
    case ContentType.CUSTOM:
      return { type: 'custom', ...defined({ customEvent: content.customEvent }), customExts: fromKeyValues(content.customExts) };
    default:
      return { type: `msync content type ${content.type}` };
  }
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A stored body as a Content. */
export function toContent(body: MessageBody): Record<string, unknown> {
  const file = { remotePath: str(body.url), displayName: str(body.filename), secretKey: str(body.secret) };
  switch (body.type) {
    case 'txt':
      return { type: ContentType.TEXT, text: str(body.msg) ?? '' };
    case 'img': {
      const size = body.size as { width?: unknown; height?: unknown } | undefined;
      return defined({ type: ContentType.IMAGE, ...file, size: size ? { width: num(size.width) ?? 0, height: num(size.height) ?? 0 } : undefined });
    }
    case 'audio':
      return defined({ type: ContentType.VOICE, ...file, duration: num(body.length) });
    case 'video':
      return defined({
        type: ContentType.VIDEO,
        ...file,
        duration: num(body.length),
        thumbnailRemotePath: str(body.thumb),
        thumbnailSecretKey: str(body.thumb_secret),
        fileLength: num(body.file_length),
      });
    case 'file':
      return defined({ type: ContentType.FILE, ...file, fileLength: num(body.file_length) });
    case 'loc':
      return { type: ContentType.LOCATION, latitude: num(body.lat) ?? 0, longitude: num(body.lng) ?? 0, address: str(body.addr) ?? '' };
    case 'cmd':
      return { type: ContentType.COMMAND, action: str(body.action) ?? '' };
    case 'custom':
      return { type: ContentType.CUSTOM, customEvent: str(body.customEvent) ?? '', customExts: toKeyValues(body.customExts as Record<string, unknown> | undefined) };
    default:
      return { type: ContentType.TEXT, text: '' };
  }
}

/** What a receiver is told of a message. */
export type Delivered = Pick<StoredMessage, 'msgId' | 'from' | 'to' | 'chatType' | 'timestamp' | 'payload'>;

/** The message a presence frame carries. */
export const deliveredOf = (f: ImMessageFrame): Delivered => ({
  msgId: f.msg_id,
  from: f.from,
  to: f.to,
  chatType: f.chat_type,
  timestamp: f.timestamp,
  payload: f.payload as Delivered['payload'],
});

export const userJid = (appKey: string, name: string): Jid => ({ appKey, name, domain: USER_DOMAIN });
export const groupJid = (appKey: string, id: string): Jid => ({ appKey, name: id, domain: GROUP_DOMAIN });

/**
 * The queue (conversation) a message is pulled from by `me`: the other user (the sender, or the
 * receiver of `me`'s own message from another device), or the group or room.
 */
export const queueOf = (appKey: string, m: Delivered, me?: string): Jid =>
  m.chatType === 'chat' ? userJid(appKey, m.from === me ? m.to : m.from) : groupJid(appKey, m.to);

const MESSAGE_TYPES: Record<ImChatType, number> = { chat: MessageType.CHAT, groupchat: MessageType.GROUPCHAT, chatroom: MessageType.CHATROOM };

/** A stored message as the Meta its receivers pull; its id is Parley's msg_id. */
export function toMeta(appKey: string, m: Delivered): MetaOut {
  const from = userJid(appKey, m.from);
  const to = m.chatType === 'chat' ? userJid(appKey, m.to) : groupJid(appKey, m.to);
  const payload = encodeMessageBody({
    type: MESSAGE_TYPES[m.chatType],
    from,
    to,
    contents: m.payload.bodies.map(toContent),
    ext: toKeyValues(m.payload.ext),
  });
  return { id: m.msgId, from, to, timestamp: m.timestamp, ns: Namespace.CHAT, payload };
}
