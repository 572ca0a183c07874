/**
 * History roaming (contract 6.8, the SDK's `getHistoryMessages`): a page of one conversation's
 * stored messages, newest first ("up") or oldest first ("down"), after the SDK's cursor (the last
 * msg_id of the page before), within `PARLEY_IM_HISTORY_DAYS`. A one-to-one conversation is the
 * messages between the user and the peer both ways; a group's or room's, those sent to it (the
 * user must be a member unless the app token asks). The request is read here (pure); the rows come
 * from the `ImHistoryRepository` port.
 */
import { IM_BODY_TYPES } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { ConversationRef } from './conversations.js';
import type { ImGroupsService } from './groups.js';
import type { GroupKind, ImApp, ImGroup, StoredMessage } from './ports.js';

/** Whose messages a page holds. */
export type HistoryConversation = { kind: 'chat'; me: string; peer: string } | { kind: 'group'; groupId: string; sender?: string };

export interface HistoryQuery {
  appId: string;
  conversation: HistoryConversation;
  /** `up`: newest first, msg_ids below the cursor; `down`: oldest first, above it. */
  direction: 'up' | 'down';
  /** Exclusive msg_id bound; none: from the newest (up) or the oldest (down). */
  cursor?: string;
  limit: number;
  /** First body types to keep; none: every type. */
  types?: string[];
  /** Oldest timestamp answered (epoch ms). */
  since: number;
  /** Newest timestamp answered (epoch ms), when given. */
  until?: number;
  /** Messages up to this msg_id were cleared for the user (a conversation deleted with its history). */
  floor?: string;
}

export interface ImHistoryRepository {
  /** Up to `limit` messages of the query, in its direction's order. */
  page(query: HistoryQuery): Promise<StoredMessage[]>;
  /**
   * Removes messages from history and from every offline store (recall, delete): their rows go,
   * the offline rows with them. Returns how many were removed.
   */
  removeMessages(appId: string, msgIds: readonly string[]): Promise<number>;
}

/** The SDK's request body, as far as Parley reads it. */
export interface RoamingRequest {
  queue: string;
  start?: string | number | null;
  pull_number?: number;
  is_positive?: boolean;
  msgType?: string | null;
  startTime?: number | null;
  endTime?: number | null;
  userId?: string | null;
}

export interface RoamingPage {
  messages: StoredMessage[];
  isLast: boolean;
  /** The cursor of the next page: the last msg_id of this one ('' when it is empty). */
  nextKey: string;
}

/** The SDK's page size is 20; Easemob answers at most 50 a page. */
export const ROAMING_MAX_PAGE = 50;
const USER_DOMAIN = '@easemob.com';
const GROUP_DOMAIN = '@conference.easemob.com';
const CURSOR = /^\d{1,19}$/;

const illegal = (detail: string) => new AppError('illegal_argument', { detail });

/** The conversation a `queue` names: `peer@easemob.com` or `group@conference.easemob.com`. */
export function queueTarget(queue: string): { kind: 'chat' | 'group'; id: string } {
  const at = queue.lastIndexOf('@');
  const id = at > 0 ? queue.slice(0, at) : '';
  const domain = at > 0 ? queue.slice(at) : '';
  if (id === '' || (domain !== USER_DOMAIN && domain !== GROUP_DOMAIN)) throw illegal(`queue: ${queue} is not user@easemob.com or group@conference.easemob.com`);
  return { kind: domain === GROUP_DOMAIN ? 'group' : 'chat', id: domain === USER_DOMAIN ? id.toLowerCase() : id };
}

/** The cursor: none at the start (-1, '' or absent), else a msg_id; anything else does not decode. */
export function roamingCursor(start: RoamingRequest['start']): string | undefined {
  if (start === undefined || start === null || start === '' || start === -1 || start === '-1') return undefined;
  const text = String(start);
  if (!CURSOR.test(text)) throw illegal(`start: the cursor ${text.slice(0, 40)} does not decode`);
  return text;
}

function bodyTypes(msgType: RoamingRequest['msgType']): string[] | undefined {
  if (!msgType) return undefined;
  const types = msgType.split(',').map((t) => t.trim()).filter((t) => t !== '');
  for (const t of types) if (!(IM_BODY_TYPES as readonly string[]).includes(t)) throw illegal(`msgType: ${t} is not one of ${IM_BODY_TYPES.join(', ')}`);
  return types.length > 0 ? types : undefined;
}

/** The query a request asks for (pure): `now - retentionMs` bounds how far back it reaches. */
export function roamingQuery(appId: string, me: string, body: RoamingRequest, now: number, retentionMs: number): HistoryQuery {
  const target = queueTarget(body.queue);
  const sender = body.userId ? body.userId.toLowerCase() : undefined;
  const conversation: HistoryConversation = target.kind === 'chat' ? { kind: 'chat', me, peer: target.id } : { kind: 'group', groupId: target.id, ...(sender ? { sender } : {}) };
  const cursor = roamingCursor(body.start);
  const types = bodyTypes(body.msgType);
  const since = Math.max(now - retentionMs, body.startTime ?? 0);
  return {
    appId,
    conversation,
    direction: body.is_positive ? 'down' : 'up',
    ...(cursor ? { cursor } : {}),
    limit: Math.min(Math.max(body.pull_number ?? 20, 1), ROAMING_MAX_PAGE),
    ...(types ? { types } : {}),
    since,
    ...(typeof body.endTime === 'number' && body.endTime > 0 ? { until: body.endTime } : {}),
  };
}

export class ImHistory {
  constructor(
    private readonly repo: ImHistoryRepository,
    private readonly groups: ImGroupsService,
    private readonly clock: Clock,
    private readonly retentionMs: number,
    /** Where the user cleared a conversation's history (deleteConversation with delete_roam): '0' when not. */
    private readonly clearedUpTo: (appId: string, username: string, ref: ConversationRef) => Promise<string>,
  ) {}

  /** A page of `me`'s conversation; `asAdmin` (the app token) reads any group's. */
  async page(app: ImApp, me: string, body: RoamingRequest, asAdmin: boolean): Promise<RoamingPage> {
    const query = roamingQuery(app.id, me, body, this.clock.now(), this.retentionMs);
    const c = query.conversation;
    if (c.kind === 'group') await this.assertReader(app, c.groupId, me, asAdmin);
    const floor = await this.clearedUpTo(app.id, me, c.kind === 'chat' ? { kind: 'chat', peer: c.peer } : { kind: 'group', peer: c.groupId });
    // One more than the page tells whether another page follows.
    const rows = await this.repo.page({ ...query, limit: query.limit + 1, ...(floor !== '0' ? { floor } : {}) });
    const messages = rows.slice(0, query.limit);
    return { messages, isLast: rows.length <= query.limit, nextKey: messages.at(-1)?.msgId ?? '' };
  }

  /** Takes messages out of history and out of every offline store (recall, delete); how many went. */
  remove(appId: string, msgIds: readonly string[]): Promise<number> {
    return this.repo.removeMessages(appId, msgIds);
  }

  private async assertReader(app: ImApp, id: string, me: string, asAdmin: boolean): Promise<void> {
    let group: ImGroup | undefined;
    for (const kind of ['group', 'chatroom'] as GroupKind[]) {
      group = await this.groups.require(app, kind, id).catch(() => undefined);
      if (group) break;
    }
    if (!group) throw new AppError('service_resource_not_found', { resource: `Service resource group ${id}` });
    if (!asAdmin && !(await this.groups.isMember(group, me))) throw new AppError('forbidden_op', { detail: `${me} is not a member of ${id}` });
  }
}
