/**
 * The server conversation list (contract 6.8, the SDK's `getServerConversations`): a user's
 * one-to-one conversations and groups, latest message first, each with its last message and the
 * number of messages the user has not read. It is read from the stored messages (nothing more is
 * written per message); the user's marks say what was read (CHANNEL_ACK), what was deleted from
 * the list (shown again by a later message), whose history was cleared with it, which are
 * pinned (`pinConversation`: shown as pinned, and alone in the pinned list) and which Easemob marks
 * the user put on each (`addConversationMark`: shown in the list, and a mark's list alone).
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { hasMark } from './conversation-mark-set.js';
import { lastIdBefore } from './msg-id.js';
import type { ImApp, StoredMessage } from './ports.js';

export type ConversationKind = 'chat' | 'group';

export interface ConversationRef {
  kind: ConversationKind;
  /** The peer's user name, or the group id. */
  peer: string;
}

export interface ConversationMarks {
  readMsgId: string;
  hiddenMsgId: string;
  clearedMsgId: string;
  /** When the user pinned it (ms), 0 when not pinned. */
  pinnedAt: number;
  /** The user's Easemob marks on it (bit n: `mark_n`; conversation-mark-set.ts), 0 when none. */
  markSet: number;
}

/** A conversation of a page, with where the user's unread messages start. */
export interface PageItem extends ConversationRef {
  lastMsgId: string;
  /** Messages after this one (read or cleared up to it) are unread. */
  afterMsgId: string;
}

/** Every conversation of the user with the msg_id of its latest message, and the user's marks. */
export interface ConversationOverview {
  latest: Array<ConversationRef & { lastMsgId: string }>;
  marks: Map<string, ConversationMarks>;
}

export interface ImConversationsRepository {
  /** Every conversation of the user (groups: those they belong to) and the user's marks, read together. */
  overview(appId: string, username: string): Promise<ConversationOverview>;
  marks(appId: string, username: string): Promise<Map<string, ConversationMarks>>;
  /**
   * Each item's last message (undefined when it is gone) and the number of messages others sent in
   * it after `afterMsgId`, in the items' order.
   */
  page(appId: string, username: string, items: readonly PageItem[]): Promise<Array<{ last: StoredMessage | undefined; unread: number }>>;
  /** The latest msg_id of one conversation ('0' when it has none). */
  latestOf(appId: string, username: string, ref: ConversationRef): Promise<string>;
  /** Sets the given marks of one conversation (others kept). */
  mark(appId: string, username: string, ref: ConversationRef, marks: Partial<ConversationMarks>): Promise<void>;
  /** Adds (`on`) or removes one Easemob mark on each of the (distinct) conversations, all or none. */
  setMark(appId: string, username: string, refs: readonly ConversationRef[], mark: number, on: boolean): Promise<void>;
}

export interface ConversationEntry extends ConversationRef {
  unread: number;
  last: StoredMessage;
  /** When the user pinned it (ms), 0 when not pinned. */
  pinnedAt: number;
  /** The user's Easemob marks on it (bit set), 0 when none. */
  markSet: number;
}

/** Which conversations a list holds: all, the pinned ones, or those carrying one mark. */
export interface ConversationFilter {
  pinned?: boolean;
  mark?: number;
}

export interface ConversationPage {
  entries: ConversationEntry[];
  /** The next page's cursor ('' on the last page). */
  cursor: string;
}

export const markKey = (ref: ConversationRef): string => `${ref.kind} ${ref.peer}`;
export const CONVERSATIONS_MAX_PAGE = 50;
const CURSOR = /^\d{1,19}$/;

/**
 * Whether msg_id `a` is later than `b`: both decimal without leading zeros (as stored ids print), so
 * the longer is the larger and equal lengths compare as text, with no BigInt per comparison (a list
 * sorts every conversation of the user).
 */
export const laterMsgId = (a: string, b: string): boolean => (a.length === b.length ? a > b : a.length > b.length);
const later = laterMsgId;

/** The visible conversations, latest first, of one page after `cursor` (pure). */
export function visiblePage(
  latest: ReadonlyArray<ConversationRef & { lastMsgId: string }>,
  marks: ReadonlyMap<string, ConversationMarks>,
  cursor: string | undefined,
  limit: number,
): { page: Array<ConversationRef & { lastMsgId: string }>; more: boolean } {
  const after = cursor === undefined ? undefined : BigInt(cursor).toString();
  const visible = latest
    .filter((c) => {
      const mark = marks.get(markKey(c));
      return !mark || later(c.lastMsgId, mark.hiddenMsgId);
    })
    .filter((c) => after === undefined || later(after, c.lastMsgId))
    .sort((a, b) => (later(a.lastMsgId, b.lastMsgId) ? -1 : 1));
  return { page: visible.slice(0, limit), more: visible.length > limit };
}

export class ImConversations {
  constructor(
    private readonly repo: ImConversationsRepository,
    private readonly clock: Clock,
    private readonly retentionMs: number,
  ) {}

  /** A page of the list, latest first; `only`: of the pinned conversations, or of one mark's, only. */
  async list(app: ImApp, username: string, limit: number, cursor: string | undefined, only: ConversationFilter = {}): Promise<ConversationPage> {
    if (cursor !== undefined && !CURSOR.test(cursor)) throw new AppError('illegal_argument', { detail: `cursor: ${cursor.slice(0, 40)} does not decode` });
    const since = this.clock.now() - this.retentionMs;
    const { latest: all, marks } = await this.repo.overview(app.id, username);
    const latest = all.filter((c) => {
      const mark = marks.get(markKey(c));
      if (only.pinned === true && !((mark?.pinnedAt ?? 0) > 0)) return false;
      return only.mark === undefined || hasMark(mark?.markSet ?? 0, only.mark);
    });
    const { page, more } = visiblePage(latest, marks, cursor, Math.min(Math.max(limit, 1), CONVERSATIONS_MAX_PAGE));
    // Unread: after the read mark, the cleared history and the history period. A msg_id holds the
    // time it was issued (msg-id.ts), so the period is a bound on ids, as for the retention sweep.
    const periodStart = lastIdBefore(since);
    const afterOf = (c: ConversationRef) => {
      const mark = marks.get(markKey(c));
      return [mark?.readMsgId ?? '0', mark?.clearedMsgId ?? '0'].reduce((a, b) => (later(a, b) ? a : b), periodStart);
    };
    const found = await this.repo.page(app.id, username, page.map((c) => ({ ...c, afterMsgId: afterOf(c) })));
    const entries: ConversationEntry[] = [];
    page.forEach((c, i) => {
      const { last, unread } = found[i] ?? { last: undefined, unread: 0 };
      // A conversation whose latest message is past the history period (or was removed) is not listed.
      const mark = marks.get(markKey(c));
      if (last && last.timestamp >= since && later(c.lastMsgId, mark?.clearedMsgId ?? '0')) entries.push({ kind: c.kind, peer: c.peer, unread, last, pinnedAt: mark?.pinnedAt ?? 0, markSet: mark?.markSet ?? 0 });
    });
    return { entries, cursor: more ? (page.at(-1)?.lastMsgId ?? '') : '' };
  }

  /** Where the user cleared the conversation's history ('0': never). */
  async clearedUpTo(appId: string, username: string, ref: ConversationRef): Promise<string> {
    return (await this.repo.marks(appId, username)).get(markKey(ref))?.clearedMsgId ?? '0';
  }

  /** CHANNEL_ACK: everything in the conversation so far is read. */
  async markRead(app: ImApp, username: string, ref: ConversationRef): Promise<void> {
    const latest = await this.repo.latestOf(app.id, username, ref);
    if (latest !== '0') await this.repo.mark(app.id, username, ref, { readMsgId: latest });
  }

  /** Pins or unpins the conversation for the user; answers when it was pinned (0: not pinned). */
  async pin(app: ImApp, username: string, ref: ConversationRef, pinned: boolean): Promise<number> {
    const pinnedAt = pinned ? this.clock.now() : 0;
    await this.repo.mark(app.id, username, ref, { pinnedAt });
    return pinnedAt;
  }

  /** Adds (`on`) or removes one Easemob mark on each conversation for the user, in one write. */
  async setMark(app: ImApp, username: string, refs: readonly ConversationRef[], mark: number, on: boolean): Promise<void> {
    const distinct = [...new Map(refs.map((r) => [markKey(r), r])).values()];
    await this.repo.setMark(app.id, username, distinct, mark, on);
  }

  /** Deletes the conversation from the user's list (a later message shows it again); `clearHistory` also ends its history for them. */
  async remove(app: ImApp, username: string, ref: ConversationRef, clearHistory: boolean): Promise<void> {
    const latest = await this.repo.latestOf(app.id, username, ref);
    await this.repo.mark(app.id, username, ref, { readMsgId: latest, hiddenMsgId: latest, ...(clearHistory ? { clearedMsgId: latest } : {}) });
  }
}
