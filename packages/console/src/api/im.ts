/**
 * Calls to one IM app's admin surface (`/{org}/{app}/...`), made with that app's admin token.
 * The signed-in system admin gets the token from `POST /management/apps/{org}/{app}/token` (no
 * client secret) and the console keeps it in sessionStorage only: it ends with the tab.
 */
import type {
  AppTokenResult,
  CallbackRuleView,
  CallbackTestResult,
  CallbackServiceSettings,
  CallbackServiceUpdate,
  ChatroomListItem,
  CreateCallbackRuleRequest,
  GroupListItem,
  ImUserView,
  RecentCallbacks,
  StoredKeyInfo,
  StoredRecordView,
  UpdateCallbackRuleRequest,
  OperationsWebhookRequest,
  OperationsWebhookView,
  OperatorEventView,
} from '@parley/protocol';
import { apiRequest, type Method } from './client.js';
import type { OperationsApi } from './operations.js';

export interface ImAppSession {
  org: string;
  app: string;
  token: string;
  /** Epoch ms (browser clock) after which the token is no longer accepted. */
  expiresAt: number;
}

/** The IM success envelope: `timestamp` is the server's clock when it received the request. */
interface ImEnvelope<T> {
  timestamp: number;
  data: T;
}

interface ImEntities<T> {
  timestamp: number;
  entities: T[];
}

/** A result with the server clock's offset from the browser's, for countdowns in server time. */
export interface Timed<T> {
  value: T;
  serverOffsetMs: number;
}

export type RoomKind = 'chatgroups' | 'chatrooms';

export interface NewRoom {
  name: string;
  description: string;
  public: boolean;
  owner: string;
  members: string[];
  maxusers?: number;
}

/** One page of a list; `cursor` (when set) reads the next. */
export interface ListPage<T> {
  items: T[];
  cursor?: string;
}

/** A group or chat room in a list (`GET /chatgroups`, `GET /chatrooms`), in one shape for both. */
export interface RoomListItem {
  id: string;
  name: string;
  owner: string;
  /** Members, the owner included. */
  members: number;
}

/** An edit of a group or chat room; `public` only for groups. */
export interface RoomChanges {
  name?: string;
  description?: string;
  maxusers?: number;
  public?: boolean;
}

const listQuery = (q: string, cursor: string | undefined, limit: number) =>
  `?limit=${limit}${q ? `&q=${encodeURIComponent(q)}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

/** A group or chat room as `GET /chatgroups/{id}` and `GET /chatrooms/{id}` answer it. */
export interface RoomView {
  id: string;
  name: string;
  description: string;
  public?: boolean;
  maxusers: number;
  owner: string;
  created: number;
  affiliations_count: number;
  affiliations: Array<{ owner: string } | { member: string }>;
}

const KEY = 'parley.console.im-app';

export function loadImAppSession(now = Date.now()): ImAppSession | undefined {
  try {
    const raw = window.sessionStorage.getItem(KEY);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Partial<ImAppSession>;
    if (typeof parsed.org === 'string' && typeof parsed.app === 'string' && typeof parsed.token === 'string' && typeof parsed.expiresAt === 'number' && parsed.expiresAt > now) {
      return parsed as ImAppSession;
    }
  } catch {
    // storage disabled or corrupt: no app selected
  }
  return undefined;
}

export function saveImAppSession(session: ImAppSession | undefined): void {
  try {
    if (session) window.sessionStorage.setItem(KEY, JSON.stringify(session));
    else window.sessionStorage.removeItem(KEY);
  } catch {
    // storage disabled: the app stays selected until the page is reloaded
  }
}

const appPath = (org: string, app: string) => `/${encodeURIComponent(org)}/${encodeURIComponent(app)}`;

/** The session of an app token asked for at `requestedAt` (browser clock, ms). */
export function appSession(org: string, app: string, token: AppTokenResult, requestedAt: number): ImAppSession {
  return { org, app, token: token.access_token, expiresAt: requestedAt + token.expires_in * 1000 };
}

export class ImAppApi {
  private readonly base: string;

  constructor(
    readonly session: ImAppSession,
    private readonly onUnauthorized: () => void,
  ) {
    this.base = appPath(session.org, session.app);
  }

  private async call<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    try {
      return await apiRequest<T>(method, `${this.base}${path}`, { token: this.session.token, body, signal });
    } catch (error) {
      if ((error as { status?: number }).status === 401) this.onUnauthorized();
      throw error;
    }
  }

  private data<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    return this.call<ImEnvelope<T>>(method, path, body, signal).then((r) => r.data);
  }

  /** The app's operations webhook and operator events (contract 6.7). */
  operations(): OperationsApi {
    return {
      webhook: (signal) => this.data<OperationsWebhookView | null>('GET', '/callbacks/operations', undefined, signal),
      save: (request: OperationsWebhookRequest) => this.data('PUT', '/callbacks/operations', request),
      remove: () => this.data('DELETE', '/callbacks/operations'),
      events: (limit, signal) => this.call<ImEntities<OperatorEventView>>('GET', `/callbacks/operations/events?limit=${limit}`, undefined, signal).then((r) => r.entities),
    };
  }

  settings(signal?: AbortSignal): Promise<CallbackServiceSettings> {
    return this.data('GET', '/callbacks/service', undefined, signal);
  }

  updateSettings(update: CallbackServiceUpdate): Promise<CallbackServiceSettings> {
    return this.data('PUT', '/callbacks/service', update);
  }

  async rules(signal?: AbortSignal): Promise<Timed<CallbackRuleView[]>> {
    const sent = Date.now();
    const r = await this.call<ImEntities<CallbackRuleView>>('GET', '/callbacks/rules', undefined, signal);
    return { value: r.entities, serverOffsetMs: r.timestamp - sent };
  }

  createRule(request: CreateCallbackRuleRequest): Promise<CallbackRuleView> {
    return this.data('POST', '/callbacks/rules', request);
  }

  updateRule(name: string, request: UpdateCallbackRuleRequest): Promise<CallbackRuleView> {
    return this.data('PUT', `/callbacks/rules/${encodeURIComponent(name)}`, request);
  }

  deleteRule(name: string): Promise<CallbackRuleView> {
    return this.data('DELETE', `/callbacks/rules/${encodeURIComponent(name)}`);
  }

  rotateRuleSecret(name: string): Promise<CallbackRuleView> {
    return this.data('POST', `/callbacks/rules/${encodeURIComponent(name)}/secret`);
  }

  /** Sends a test record to the rule: the exact signed strings, the request and the receiver's answer. */
  testRule(name: string): Promise<CallbackTestResult> {
    return this.data('POST', `/callbacks/rules/${encodeURIComponent(name)}/test`);
  }

  /** The keys, and the IANA zone their `yyyyMMddHHmm` is read in. */
  async storageInfo(signal?: AbortSignal): Promise<{ keys: StoredKeyInfo[]; zone: string }> {
    const r = await this.call<ImEnvelope<StoredKeyInfo[]> & { date_key_zone: string }>('GET', '/callbacks/storage/info', undefined, signal);
    return { keys: r.data, zone: r.date_key_zone };
  }

  /** One page of a key's records; `cursor` (when set) asks for the next one. */
  async storedRecords(date: string, cursor?: string, signal?: AbortSignal): Promise<{ records: StoredRecordView[]; cursor?: string }> {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
    const r = await this.call<ImEntities<StoredRecordView> & { cursor?: string }>('GET', `/callbacks/storage/${encodeURIComponent(date)}${query}`, undefined, signal);
    return r.cursor ? { records: r.entities, cursor: r.cursor } : { records: r.entities };
  }

  retry(date: string, retry: number, targetUrl: string | undefined): Promise<'success' | 'failure'> {
    return this.data('POST', '/callbacks/storage/retry', { date, retry, ...(targetUrl ? { targetUrl } : {}) });
  }

  recent(limit: number, signal?: AbortSignal): Promise<RecentCallbacks> {
    return this.data('GET', `/callbacks/deliveries/recent?limit=${limit}`, undefined, signal);
  }

  // --- Users, groups and chat rooms --------------------------------------------------------------
  createUser(user: { username: string; password: string; nickname?: string }): Promise<ImUserView[]> {
    return this.call<ImEntities<ImUserView>>('POST', '/users', user).then((r) => r.entities);
  }

  getUser(username: string): Promise<ImUserView> {
    return this.call<ImEntities<ImUserView>>('GET', `/users/${encodeURIComponent(username)}`).then((r) => r.entities[0] as ImUserView);
  }

  /** A page of users, oldest first; `q` keeps those whose username or nickname contains it. */
  async listUsers(q: string, cursor: string | undefined, limit: number, signal?: AbortSignal): Promise<ListPage<ImUserView>> {
    const r = await this.call<ImEntities<ImUserView> & { cursor?: string }>('GET', `/users${listQuery(q, cursor, limit)}`, undefined, signal);
    return r.cursor ? { items: r.entities, cursor: r.cursor } : { items: r.entities };
  }

  setNickname(username: string, nickname: string): Promise<unknown> {
    return this.call('PUT', `/users/${encodeURIComponent(username)}`, { nickname });
  }

  setPassword(username: string, newpassword: string): Promise<unknown> {
    return this.call('PUT', `/users/${encodeURIComponent(username)}/password`, { newpassword });
  }

  deleteUser(username: string): Promise<unknown> {
    return this.call('DELETE', `/users/${encodeURIComponent(username)}`);
  }

  createRoom(kind: RoomKind, room: NewRoom): Promise<string> {
    const body =
      kind === 'chatgroups'
        ? { groupname: room.name, description: room.description, public: room.public, owner: room.owner, members: room.members, ...(room.maxusers ? { maxusers: room.maxusers } : {}) }
        : { name: room.name, description: room.description, owner: room.owner, members: room.members, ...(room.maxusers ? { maxusers: room.maxusers } : {}) };
    return this.data<{ groupid?: string; id?: string }>('POST', `/${kind}`, body).then((d) => (d.groupid ?? d.id) as string);
  }

  getRoom(kind: RoomKind, id: string): Promise<RoomView> {
    return this.data<RoomView[]>('GET', `/${kind}/${encodeURIComponent(id)}`).then((d) => d[0] as RoomView);
  }

  /** A page of groups or chat rooms, newest first; `q` keeps those whose name contains it (or whose id it is). */
  async listRooms(kind: RoomKind, q: string, cursor: string | undefined, limit: number, signal?: AbortSignal): Promise<ListPage<RoomListItem>> {
    const r = await this.call<ImEnvelope<Array<GroupListItem | ChatroomListItem>> & { cursor?: string }>('GET', `/${kind}${listQuery(q, cursor, limit)}`, undefined, signal);
    const items = r.data.map((d) => ('groupid' in d ? { id: d.groupid, name: d.groupname, owner: d.owner, members: d.affiliations } : { id: d.id, name: d.name, owner: d.owner, members: d.affiliations_count }));
    return r.cursor ? { items, cursor: r.cursor } : { items };
  }

  updateRoom(kind: RoomKind, id: string, changes: RoomChanges): Promise<unknown> {
    const { name, ...rest } = changes;
    const body = kind === 'chatgroups' ? { ...(name === undefined ? {} : { groupname: name }), ...rest } : { ...(name === undefined ? {} : { name }), description: rest.description, maxusers: rest.maxusers };
    return this.data('PUT', `/${kind}/${encodeURIComponent(id)}`, body);
  }

  deleteRoom(kind: RoomKind, id: string): Promise<unknown> {
    return this.data('DELETE', `/${kind}/${encodeURIComponent(id)}`);
  }

  addMember(kind: RoomKind, id: string, username: string): Promise<{ result: boolean }> {
    return this.data('POST', `/${kind}/${encodeURIComponent(id)}/users/${encodeURIComponent(username)}`);
  }

  removeMember(kind: RoomKind, id: string, username: string): Promise<{ result: boolean }> {
    return this.data('DELETE', `/${kind}/${encodeURIComponent(id)}/users/${encodeURIComponent(username)}`);
  }

  sensitiveWords(signal?: AbortSignal): Promise<{ words: string[] }> {
    return this.data('GET', '/moderation/sensitive-words', undefined, signal);
  }

  setSensitiveWords(words: string[]): Promise<{ words: string[] }> {
    return this.data('PUT', '/moderation/sensitive-words', { words });
  }
}
