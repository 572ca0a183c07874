/**
 * JSON-socket frames about messages already sent: receipts, recalls and edits (docs/im.md). Each
 * answers an `ack`, or throws the error its `error` frame names.
 */
import type { ImAckFrame, ImEditClientFrame, ImReceiptClientFrame, ImRecallClientFrame } from '@parley/protocol';
import { AppError } from '../../../kernel/errors.js';
import { normaliseBody } from '../../../modules/im/bodies.js';
import type { ImModule } from '../../../modules/im/index.js';
import type { ImApp } from '../../../modules/im/ports.js';

const bad = (detail: string) => new AppError('illegal_argument', { detail });
const RECEIPT_KINDS: readonly string[] = ['read', 'delivered', 'channel'];
const text = (value: unknown, field: string, max: number): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) throw bad(`${field}: expected a string of at most ${max} characters`);
  return value;
};

export async function handleChange(
  im: ImModule,
  imApp: ImApp,
  username: string,
  device: string,
  frame: ImReceiptClientFrame | ImRecallClientFrame | ImEditClientFrame,
  resource = '',
): Promise<ImAckFrame> {
  const id = typeof frame.id === 'string' ? frame.id : '';
  switch (frame.op) {
      case 'receipt': {
        if (!RECEIPT_KINDS.includes(frame.kind)) throw bad('kind: expected read, delivered or channel');
        const chatType = frame.chat_type ?? 'chat';
        if (chatType !== 'chat' && chatType !== 'groupchat') throw bad('chat_type: expected chat or groupchat');
        const msgId = text(frame.msg_id, 'msg_id', 32);
        const ackContent = text(frame.ack_content, 'ack_content', 1024);
        await im.receipts.send(imApp, {
          from: username,
          kind: frame.kind,
          chatType,
          to: text(frame.to, 'to', 128) ?? '',
          ...(msgId ? { msgId } : {}),
          ...(ackContent ? { ackContent } : {}),
        });
        return ({ op: 'ack', id, timestamp: Date.now() });
      }
      case 'recall': {
        const ext = text(frame.ext, 'ext', 1024);
        await im.recalls.recall(imApp, { msgId: text(frame.msg_id, 'msg_id', 32) ?? '', by: username, device, resource, ...(ext ? { ext } : {}) });
        return ({ op: 'ack', id, msg_id: frame.msg_id, timestamp: Date.now() });
      }
      case 'edit': {
        const raw = frame.body as unknown;
        if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('body: expected an object');
        if (frame.ext !== undefined && (typeof frame.ext !== 'object' || frame.ext === null || Array.isArray(frame.ext))) throw bad('ext: expected an object');
        const { type, ...fields } = raw as { type?: unknown };
        const body = normaliseBody(type, fields, 'body', 'body.type');
        await im.edits.edit(imApp, { msgId: text(frame.msg_id, 'msg_id', 32) ?? '', by: username, body, device, resource, ...(frame.ext ? { ext: frame.ext } : {}) });
        return ({ op: 'ack', id, msg_id: frame.msg_id, timestamp: Date.now() });
      }
  }
}
