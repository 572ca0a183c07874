/**
 * The cursor of the conversation list: base64url of the last listed row's keys in the list's order,
 * `w.{vip}.{queuedAt}.{id}` (queue order), `o.{queuedAt}.{id}` (longest waiting), `n.{id}` (newest)
 * or `r.{updatedAt}.{id}` (most recent activity first). The next page is "rows after this one"
 * (keyset): conversations opened or closed between two pages neither shift nor repeat the ones
 * already listed. A cursor names no tenant or filter: the listing always filters on the caller's
 * tenant and view, so a cursor only gives a position.
 */
import { AppError } from '../../kernel/errors.js';
import type { ConversationListPosition, ConversationOrder } from './ports.js';

const FORMS: Record<ConversationOrder, RegExp> = {
  queue: /^w\.([01])\.(\d{1,16})\.(\d{1,16})$/,
  waited: /^o\.(\d{1,16})\.(\d{1,16})$/,
  newest: /^n\.(\d{1,16})$/,
  recent: /^r\.(\d{1,16})\.(\d{1,16})$/,
};

/** What the mismatch message calls a list of each order. */
const NAMES: Record<ConversationOrder, string> = {
  queue: 'the list of state=waiting',
  waited: 'a list in sort=longest_waiting order',
  newest: 'a list in sort=newest order',
  recent: 'a list in recent order',
};

export function encodeConversationCursor(order: ConversationOrder, last: ConversationListPosition): string {
  const text =
    order === 'queue'
      ? `w.${last.vip ? 1 : 0}.${last.queuedAt}.${last.id}`
      : order === 'waited'
        ? `o.${last.queuedAt}.${last.id}`
        : order === 'newest'
          ? `n.${last.id}`
          : `r.${last.updatedAt}.${last.id}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The position to list after; 400 `invalid_request` naming `cursor` for anything this listing did not issue. */
export function decodeConversationCursor(cursor: string, order: ConversationOrder): ConversationListPosition {
  const bad = (why: string) => new AppError('invalid_request', { detail: `querystring.cursor ${why}` });
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const found = (Object.keys(FORMS) as ConversationOrder[]).find((o) => FORMS[o].test(text));
  if (!found) throw bad('is not a cursor of this listing');
  if (found !== order) throw bad(`belongs to ${NAMES[found]}, not to ${NAMES[order]}`);
  const m = FORMS[order].exec(text)!;
  const numbers = (order === 'queue' ? m.slice(2) : m.slice(1)).map(Number);
  if (!numbers.every(Number.isSafeInteger)) throw bad('is not a cursor of this listing');
  const none = { vip: false, queuedAt: 0, updatedAt: 0 };
  if (order === 'queue') return { ...none, vip: m[1] === '1', queuedAt: numbers[0]!, id: numbers[1]! };
  if (order === 'waited') return { ...none, queuedAt: numbers[0]!, id: numbers[1]! };
  if (order === 'newest') return { ...none, id: numbers[0]! };
  return { ...none, updatedAt: numbers[0]!, id: numbers[1]! };
}
