/**
 * The cursor of the conversation list: base64url of the last listed row's keys in the list's order,
 * `w.{vip}.{queuedAt}.{id}` (queue order) or `r.{updatedAt}.{id}` (most recent first). The next
 * page is "rows after this one" (keyset): conversations opened or closed between two pages neither
 * shift nor repeat the ones already listed. A cursor names no tenant or filter: the listing always
 * filters on the caller's tenant and view, so a cursor only gives a position.
 */
import { AppError } from '../../kernel/errors.js';
import type { ConversationListPosition, ConversationOrder } from './ports.js';

const QUEUE = /^w\.([01])\.(\d{1,16})\.(\d{1,16})$/;
const RECENT = /^r\.(\d{1,16})\.(\d{1,16})$/;

export function encodeConversationCursor(order: ConversationOrder, last: ConversationListPosition): string {
  const text = order === 'queue' ? `w.${last.vip ? 1 : 0}.${last.queuedAt}.${last.id}` : `r.${last.updatedAt}.${last.id}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The position to list after; 400 `invalid_request` naming `cursor` for anything this listing did not issue. */
export function decodeConversationCursor(cursor: string, order: ConversationOrder): ConversationListPosition {
  const bad = (why: string) => new AppError('invalid_request', { detail: `querystring.cursor ${why}` });
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const queue = QUEUE.exec(text);
  const recent = RECENT.exec(text);
  if (!queue && !recent) throw bad('is not a cursor of this listing');
  if (order === 'queue' && !queue) throw bad('belongs to a list in recent order, not to state=waiting');
  if (order === 'recent' && !recent) throw bad('belongs to the list of state=waiting');
  const numbers = (queue ? queue.slice(2) : recent!.slice(1)).map(Number);
  if (!numbers.every(Number.isSafeInteger)) throw bad('is not a cursor of this listing');
  if (queue) return { vip: queue[1] === '1', queuedAt: numbers[0]!, id: numbers[1]!, updatedAt: 0 };
  return { vip: false, queuedAt: 0, updatedAt: numbers[0]!, id: numbers[1]! };
}
