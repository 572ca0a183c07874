/**
 * Contacts (Easemob's roster) and block lists. A user asks another (`apply`), who accepts or
 * declines; accepting makes them contacts both ways; either may remove the other. A user's
 * block list refuses one-to-one messages from those on it, over every protocol (messages.ts asks
 * `blockersOf` before anything is stored). Each change is told to the other user's open sockets
 * (`roster` frames; msync turns them into the SDK's contact events), live only. Names are the app's users; a request to oneself or to
 * someone not in the app is refused as Easemob does. Each change that writes is written with the
 * callback jobs of its `roster` events (operation-events.ts): add; accept and remote_accept;
 * decline and remote_decline; remove; ban and allow, one per name.
 */
import { IM_USERNAME_PATTERN, type ImRosterFrame, type RosterOperation } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { TtlCache } from '../../kernel/ttl-cache.js';
import { InProcessSettingsVersions, type SettingsScope, type SettingsVersions } from '../coordination/settings-versions.js';
import type { IdGenerator } from './msg-id.js';
import type { OperationEvents, RosterEvent } from './operation-events.js';
import type { ImApp } from './ports.js';
import type { ImContact, ImContactsRepository } from './sdk-ports.js';
import { validUsername, type ImUsersService } from './users.js';

/** Contacts and block-list entries a list answers at most (Easemob's limit of contacts a user). */
export const MAX_CONTACTS = 10_000;
/** Names one block or unblock takes. */
export const MAX_BLOCK_BATCH = 50;
/** How long a receiver's cached block list is used without a change being announced. */
const BLOCK_CACHE_MS = 5_000;
/** A request's reason, at most. */
export const MAX_REASON_LENGTH = 500;
/** A remark on a contact, at most (Easemob's). */
export const MAX_REMARK_LENGTH = 100;
/** Contacts one page of `getContactsWithCursor` answers at most (Easemob's). */
export const MAX_CONTACTS_PAGE = 50;

const validName = (name: string): boolean => IM_USERNAME_PATTERN.test(name);

/** Where contact events go: the users' open sockets, live only (presence.deliver). */
export type RosterNotify = (appId: string, usernames: readonly string[], frame: ImRosterFrame) => Promise<unknown>;

export class ContactsService {
  constructor(
    private readonly repo: ImContactsRepository,
    private readonly users: ImUsersService,
    private readonly clock: Clock,
    private readonly ops: OperationEvents,
    private readonly ids: IdGenerator,
    private readonly notify: RosterNotify = async () => undefined,
    versions: SettingsVersions = new InProcessSettingsVersions(),
  ) {
    this.blockCache = new TtlCache(clock, BLOCK_CACHE_MS);
    this.versions = versions.scope('im.blocks', (appId) => this.blockCache.deleteWhere((_v, key) => key.startsWith(`${appId}\u0000`)));
  }

  private readonly blockCache: TtlCache<string, Set<string>>;
  private readonly versions: SettingsScope;

  /** Tells `to` of an event from `from`, after the write; a socket that cannot be reached misses it (live only). */
  private async tell(app: ImApp, to: string, from: string, event: ImRosterFrame['event'], reason?: string): Promise<void> {
    const frame: ImRosterFrame = { op: 'roster', event, from, to, timestamp: this.clock.now(), ...(reason ? { reason } : {}) };
    await this.notify(app.id, [to], frame).catch(() => undefined);
  }

  /** `roster` events of one operation, sharing its id: each [operation, from, to]. */
  private rosterEvents(app: ImApp, now: number, items: ReadonlyArray<[RosterOperation, string, string]>, reason?: string): RosterEvent[] {
    const msgId = this.ids.next();
    return items.map(([operation, from, to]) => ({ kind: 'roster', appId: app.id, appkey: app.appkey, timestamp: now, operation, from, to, msgId, ...(reason !== undefined ? { reason } : {}) }));
  }

  /** The two users, both of the app and not the same; 400 / 404 otherwise. */
  private async pair(app: ImApp, me: string, other: string, field: string): Promise<[string, string]> {
    const self = (await this.users.require(app, me)).username;
    const name = validUsername(other, field);
    if (name === self) throw new AppError('illegal_argument', { detail: `${field}: a user cannot be their own contact` });
    const missing = await this.users.missing(app, [name]);
    if (missing.length > 0) throw new AppError('service_resource_not_found', { resource: `Service resource user ${name}` });
    return [self, name];
  }

  async apply(app: ImApp, me: string, to: string, reason = ''): Promise<void> {
    if (reason.length > MAX_REASON_LENGTH) throw new AppError('illegal_argument', { detail: `reason: at most ${MAX_REASON_LENGTH} characters` });
    const [self, target] = await this.pair(app, me, to, 'usernames[0]');
    if (await this.repo.areContacts(app.id, self, target)) return;
    const now = this.clock.now();
    await this.ops.write(this.rosterEvents(app, now, [['add', self, target]], reason), (tx) => tx.contacts.request(app.id, self, target, reason, now));
    await this.tell(app, target, self, 'invited', reason);
  }

  async accept(app: ImApp, me: string, from: string): Promise<void> {
    const [self, requester] = await this.pair(app, me, from, 'username');
    if (await this.repo.areContacts(app.id, self, requester)) return;
    const now = this.clock.now();
    // `accept` is the answering user's record, `remote_accept` the requester's (Easemob's pair).
    const events = this.rosterEvents(app, now, [
      ['accept', requester, self],
      ['remote_accept', self, requester],
    ]);
    if (!(await this.ops.write(events, (tx) => tx.contacts.accept(app.id, self, requester, now), Boolean))) {
      throw new AppError('service_resource_not_found', { resource: `Service resource contact request from ${requester} to ${self}` });
    }
    await this.tell(app, requester, self, 'agreed');
    await this.tell(app, requester, self, 'added');
  }

  async decline(app: ImApp, me: string, from: string): Promise<void> {
    const [self, requester] = await this.pair(app, me, from, 'username');
    const events = this.rosterEvents(app, this.clock.now(), [
      ['decline', requester, self],
      ['remote_decline', self, requester],
    ]);
    if (!(await this.ops.write(events, (tx) => tx.contacts.decline(app.id, self, requester), Boolean))) {
      throw new AppError('service_resource_not_found', { resource: `Service resource contact request from ${requester} to ${self}` });
    }
    await this.tell(app, requester, self, 'refused');
  }

  /** Removes the contact both ways; removing someone who is not a contact is no error. */
  async remove(app: ImApp, me: string, contact: string): Promise<string> {
    const [self, other] = await this.pair(app, me, contact, 'username');
    const events = this.rosterEvents(app, this.clock.now(), [['remove', self, other]]);
    if (await this.ops.write(events, (tx) => tx.contacts.remove(app.id, self, other), Boolean)) await this.tell(app, other, self, 'deleted');
    return other;
  }

  async list(app: ImApp, me: string): Promise<ImContact[]> {
    const self = (await this.users.require(app, me)).username;
    return this.repo.contactsWithRemarks(app.id, self, undefined, MAX_CONTACTS);
  }

  /** A page of `limit` contacts with remarks, by name, after the previous page's `cursor`; the next cursor while more follow. */
  async page(app: ImApp, me: string, limit: number, cursor: string | undefined): Promise<{ contacts: ImContact[]; cursor?: string }> {
    const self = (await this.users.require(app, me)).username;
    const after = cursor === undefined || cursor === '' ? undefined : Buffer.from(cursor, 'base64url').toString('utf8');
    if (after !== undefined && (after === '' || !validName(after))) throw new AppError('illegal_argument', { detail: 'cursor: not a cursor of this list' });
    const rows = await this.repo.contactsWithRemarks(app.id, self, after, limit + 1);
    const contacts = rows.slice(0, limit);
    const last = contacts.at(-1);
    return rows.length > limit && last ? { contacts, cursor: Buffer.from(last.username, 'utf8').toString('base64url') } : { contacts };
  }

  /** Sets the user's remark on a contact (at most MAX_REMARK_LENGTH characters); 404 when they are not contacts. */
  async remark(app: ImApp, me: string, contact: string, remark: string): Promise<string> {
    if (remark.length > MAX_REMARK_LENGTH) throw new AppError('illegal_argument', { detail: `remark: at most ${MAX_REMARK_LENGTH} characters` });
    const [self, other] = await this.pair(app, me, contact, 'username');
    if (!(await this.repo.setRemark(app.id, self, other, remark))) throw new AppError('service_resource_not_found', { resource: `Service resource contact ${other} of ${self}` });
    return other;
  }

  async block(app: ImApp, me: string, names: readonly string[]): Promise<string[]> {
    const [self, blocked] = await this.batch(app, me, names);
    const now = this.clock.now();
    const events = this.rosterEvents(app, now, blocked.map((name) => ['ban', self, name]));
    await this.ops.write(events, (tx) => tx.contacts.block(app.id, self, blocked, now));
    await this.versions.changed(app.id);
    return blocked;
  }

  async unblock(app: ImApp, me: string, names: readonly string[]): Promise<string[]> {
    const [self, blocked] = await this.batch(app, me, names);
    const events = this.rosterEvents(app, this.clock.now(), blocked.map((name) => ['allow', self, name]));
    await this.ops.write(events, (tx) => tx.contacts.unblock(app.id, self, blocked));
    await this.versions.changed(app.id);
    return blocked;
  }

  async blocks(app: ImApp, me: string): Promise<string[]> {
    const self = (await this.users.require(app, me)).username;
    return this.repo.blocks(app.id, self, MAX_CONTACTS);
  }

  /**
   * Which of the receivers have blocked the sender. Read on every one-to-one message, so each
   * receiver's block list is cached (loads shared: one sender's messages to one receiver stay in
   * order), dropped at once on a change here and on every instance (settings versions).
   */
  async blockersOf(app: ImApp, sender: string, receivers: readonly string[]): Promise<string[]> {
    const checking = this.versions.check(app.id);
    if (checking) await checking;
    const lists = await Promise.all(receivers.map((r) => this.blockCache.get(`${app.id}\u0000${r}`, async () => new Set(await this.repo.blocks(app.id, r, MAX_CONTACTS)))));
    return receivers.filter((_, i) => lists[i]?.has(sender));
  }

  private async batch(app: ImApp, me: string, names: readonly string[]): Promise<[string, string[]]> {
    if (names.length === 0 || names.length > MAX_BLOCK_BATCH) throw new AppError('illegal_argument', { detail: `usernames: 1 to ${MAX_BLOCK_BATCH} names` });
    const self = (await this.users.require(app, me)).username;
    const folded = [...new Set(names.map((n, i) => validUsername(n, `usernames[${i}]`)))];
    if (folded.includes(self)) throw new AppError('illegal_argument', { detail: 'usernames: a user cannot block themselves' });
    const missing = await this.users.missing(app, folded);
    if (missing.length > 0) throw new AppError('service_resource_not_found', { resource: `Service resource user ${missing.join(', ')}` });
    return [self, folded];
  }
}
