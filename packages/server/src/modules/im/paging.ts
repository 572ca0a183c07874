/**
 * Keyset paging of the admin lists (users, groups, chat rooms). A page is read as `limit + 1`
 * rows after the position the cursor names; the extra row only tells that more follow. The cursor
 * is opaque to clients: the list it belongs to and the key of the page's last row, base64url JSON,
 * so a page never skips or repeats a row when rows are added or removed meanwhile.
 */
import { AppError } from '../../kernel/errors.js';
import { isCleanText } from '../../kernel/input-checks.js';

/** Position of a row in its list: creation time, then its unique id (the name, for users). */
export interface ListKey {
  at: number;
  id: string;
}

/** Which list a cursor belongs to, so one list's cursor is refused by another. */
export type ListName = 'users' | 'groups' | 'chatrooms' | 'public';

export const DEFAULT_PAGE_LIMIT = 10;

export function encodeCursor(list: ListName, key: ListKey): string {
  return Buffer.from(JSON.stringify([list, key.at, key.id]), 'utf8').toString('base64url');
}

/** Longest id a cursor may name: a user name, or a group or room id. */
const ID_MAX = 64;

/**
 * The key a cursor names; 400 `illegal_argument` when it is not a cursor of `list`. What it decodes
 * to is checked like any other input (clean text of a bounded length), never trusted for having
 * come back from a client.
 */
export function decodeCursor(list: ListName, cursor: string): ListKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const id: unknown = Array.isArray(parsed) ? parsed[2] : undefined;
  const cleanId = typeof id === 'string' && id.length > 0 && id.length <= ID_MAX && isCleanText(id);
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== list || !Number.isSafeInteger(parsed[1]) || !cleanId) {
    throw new AppError('illegal_argument', { detail: `cursor: "${cursor}" is not a cursor of this ${list} list` });
  }
  return { at: parsed[1] as number, id: id as string };
}

/** The `q` of a list, trimmed and lower-case; undefined when it is empty (no filter). */
export function foldSearch(q: string | undefined): string | undefined {
  const folded = q?.trim().toLowerCase();
  return folded ? folded : undefined;
}

export interface Page<T> {
  items: T[];
  /** Present when more rows follow. */
  cursor?: string;
}

/** Cuts `rows` (read as `limit + 1`) to a page and names the next one. */
export function pageOf<T>(list: ListName, rows: T[], limit: number, keyOf: (row: T) => ListKey): Page<T> {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, cursor: encodeCursor(list, keyOf(items[items.length - 1] as T)) };
}
