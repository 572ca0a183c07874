/**
 * Mutes and announcements of a group or chat room, as Easemob's Web SDK asks (`muteGroupMember`,
 * `unmuteGroupMember`, `getGroupMuteList`, `isInGroupMutelist`, `disableSendGroupMsg` /
 * `enableSendGroupMsg`, `fetchGroupAnnouncement` / `updateGroupAnnouncement`, and their `ChatRoom`
 * twins, `disableSendChatRoomMsg` / `enableSendChatRoomMsg` for the mute of all); each call names its `kind`:
 * - the owner, an admin or the app mutes members for `muteDuration` ms (-1: until unmuted), by the
 *   injected clock; not the owner, and an admin not another admin. A mute outlives leaving the group;
 * - a muted member's group messages are refused on every protocol (group-roles.ts `checks`);
 * - a mute of all members holds back every member but the owner, the admins and the allow list;
 * - the announcement: members read it, the owner, an admin or the app writes it (512 characters).
 * Each change is written with its callback jobs in one transaction, then announced
 * (`ImGroupsService.perform`).
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { Operator } from './group-events.js';
import type { GroupRolesService, ImGroupRolesRepository } from './group-roles.js';
import type { ImGroupsService } from './groups.js';
import type { GroupKind, ImApp, ImGroupsRepository, ImTransaction } from './ports.js';
import { validUsername } from './users.js';

/** An announcement's length, at most (Easemob's). */
export const MAX_ANNOUNCEMENT = 512;
/** `mute_duration` that mutes until unmuted. */
export const MUTE_FOREVER = -1;
/** The longest timed mute: about 100 years, ms. */
export const MAX_MUTE_MS = 100 * 365 * 24 * 3600 * 1000;

export interface MuteEntry {
  user: string;
  /** When the mute ends, ms; -1: until unmuted. */
  expire: number;
}

export class GroupMutesService {
  constructor(
    private readonly repo: ImGroupRolesRepository,
    private readonly groupsRepo: Pick<ImGroupsRepository, 'members'>,
    private readonly groups: ImGroupsService,
    private readonly roles: GroupRolesService,
    private readonly clock: Clock,
  ) {}

  /** Mutes members for `duration` ms (-1: until unmuted); answers each with the mute's end. */
  async mute(app: ImApp, kind: GroupKind, id: string, usernames: readonly string[], duration: number, operator: Operator): Promise<MuteEntry[]> {
    if (!Number.isSafeInteger(duration) || (duration !== MUTE_FOREVER && (duration < 1 || duration > MAX_MUTE_MS))) {
      throw new AppError('illegal_argument', { detail: `mute_duration: -1 (until unmuted) or 1 to ${MAX_MUTE_MS} ms` });
    }
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    const names = await this.roles.usersOf(app, usernames);
    const members = new Set((await this.groupsRepo.members(group.id)).map((m) => m.username));
    const outside = names.filter((n) => !members.has(n));
    // Easemob's words, for chat rooms too.
    if (outside.length > 0) throw new AppError('forbidden_op', { detail: `users [${outside.join(', ')}] are not members of this group!` });
    for (const name of names) {
      if (name === group.owner) throw new AppError('forbidden_op', { detail: 'forbidden operation on group owner!' });
      await this.groups.assertManager(group, operator, name);
    }
    const now = this.clock.now();
    const expire = duration === MUTE_FOREVER ? MUTE_FOREVER : now + duration;
    const until = duration === MUTE_FOREVER ? null : expire;
    await this.groups.perform(app, group, operator, { op: 'mute', users: names, expiresAt: expire }, (tx) => tx.groups.putOnList(group, 'mute', names, until, now));
    return names.map((user) => ({ user, expire }));
  }

  /** Unmutes users (those not muted too); answers them. */
  async unmute(app: ImApp, kind: GroupKind, id: string, usernames: readonly string[], operator: Operator): Promise<string[]> {
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    const names = await this.roles.usersOf(app, usernames);
    // The callback record names those muted when the call began; only their mutes are lifted.
    const muted = await this.repo.onList(group.id, 'mute', names, this.clock.now());
    if (muted.length === 0) return names;
    const unmute = (tx: ImTransaction) => tx.groups.dropFromList(group.id, 'mute', muted);
    await this.groups.perform(app, group, operator, { op: 'unmute', users: muted }, unmute, { done: (dropped) => dropped.length > 0 });
    return names;
  }

  /** The members muted now (owner, admins, the app). */
  async muted(app: ImApp, kind: GroupKind, id: string, operator: Operator): Promise<MuteEntry[]> {
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    const entries = await this.repo.list(group.id, 'mute', this.clock.now());
    return entries.map((e) => ({ user: e.username, expire: e.expiresAt ?? MUTE_FOREVER }));
  }

  async isMuted(app: ImApp, kind: GroupKind, id: string, username: string): Promise<boolean> {
    const group = await this.groups.require(app, kind, id);
    const name = validUsername(username, 'username');
    return (await this.repo.onList(group.id, 'mute', [name], this.clock.now())).length > 0;
  }

  /** Mutes every member but the owner, the admins and the allow list (true), or lifts it. */
  async muteAll(app: ImApp, kind: GroupKind, id: string, muted: boolean, operator: Operator): Promise<void> {
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    const now = this.clock.now();
    await this.groups.perform(app, group, operator, { op: 'muteAll', muted }, (tx) => tx.groups.setNotes(group.id, { allMuted: muted }, now));
  }

  async announcement(app: ImApp, kind: GroupKind, id: string): Promise<string> {
    const group = await this.groups.require(app, kind, id);
    return (await this.repo.notes(group.id)).announcement;
  }

  async setAnnouncement(app: ImApp, kind: GroupKind, id: string, text: string, operator: Operator): Promise<void> {
    if (text.length > MAX_ANNOUNCEMENT) throw new AppError('illegal_argument', { detail: `announcement: at most ${MAX_ANNOUNCEMENT} characters` });
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    const now = this.clock.now();
    await this.groups.perform(app, group, operator, { op: 'announcement', text }, (tx) => tx.groups.setNotes(group.id, { announcement: text }, now));
  }
}
