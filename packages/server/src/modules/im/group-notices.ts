/**
 * Group operations as the notices members receive: who is told what (`noticesOf`, pure), sent to
 * their open sockets as `group_event` frames. The JSON socket writes the frame as it is; msync turns
 * it into the MUC meta the SDK raises `onGroupEvent` / `onChatroomEvent` from (msync/muc-events.ts).
 * The user who did the operation is not told. A notice about the user it reaches (`keptOffline`) is
 * kept for them when none of their sockets is open and handed over at their next login
 * (pending-events.ts); notices about other members (memberPresence, memberAbsence, updateInfo, a
 * changeOwner to anyone but the new owner) are live only, and so, for now, are the notices of admins,
 * mutes, block and allow lists, announcements and shared files (group-roles.ts, group-mutes.ts,
 * shared-files.ts).
 */
import type { ImGroupEventFrame, ImGroupOperation } from '@parley/protocol';
import type { GroupEventListener, GroupOperationEvent } from './group-events.js';
import type { ImGroupsRepository } from './ports.js';

/** Group operations kept for an offline user when addressed to them (see `keptOffline`). */
const KEPT: ReadonlySet<ImGroupOperation> = new Set<ImGroupOperation>([
  'directJoined',
  'removeMember',
  'destroy',
  'requestToJoin',
  'acceptRequest',
  'joinPublicGroupDeclined',
  'inviteToJoin',
  'acceptInvite',
  'rejectInvite',
  'changeOwner',
]);

/**
 * Whether a notice is kept for `user` while they are offline: the operations above, about that user
 * (a group's end, or a change done to or asked of them; a changeOwner only for the new owner). What
 * every member hears of each join, leave or edit is not: in a big group they would crowd out the rest
 * of the user's kept events, and the SDK reads the group afresh anyway.
 */
export function keptOffline(frame: ImGroupEventFrame, user: string): boolean {
  if (!KEPT.has(frame.operation) || frame.chat_type !== 'groupchat') return false;
  return frame.operation !== 'changeOwner' || frame.to === user;
}

/** Where notices go: the users' sockets, kept for those offline that `keep` names (PendingEvents.deliver). */
export type GroupNoticeDelivery = (appId: string, usernames: readonly string[], frame: ImGroupEventFrame, keep: (username: string) => boolean) => Promise<unknown>;

/** The name a notice gives the app (an app-admin token) as the one who did it. */
export const APP_OPERATOR = 'admin';

export interface GroupNotice {
  to: string[];
  frame: ImGroupEventFrame;
}

/**
 * The notices of one operation, given the members after it (the owner included). Groups and chat
 * rooms alike, except that users added to a chat room are not told they were (they joined it).
 */
export function noticesOf(event: GroupOperationEvent, members: readonly string[]): GroupNotice[] {
  const by = event.operator ?? APP_OPERATOR;
  const frame = (operation: ImGroupOperation, from: string, to?: string, reason?: string): ImGroupEventFrame => ({
    op: 'group_event',
    operation,
    chat_type: event.kind === 'group' ? 'groupchat' : 'chatroom',
    group_id: event.groupId,
    group_name: event.groupName,
    from,
    ...(to === undefined ? {} : { to }),
    ...(reason ? { reason } : {}),
    member_count: event.memberCount,
    timestamp: event.timestamp,
  });
  const others = (...skip: Array<string | null>) => members.filter((m) => !skip.includes(m));
  const notices: GroupNotice[] = [];
  const add = (to: string[], f: ImGroupEventFrame) => {
    if (to.length > 0) notices.push({ to, frame: f });
  };
  switch (event.op) {
    case 'create':
      if (event.kind === 'group') for (const user of event.members) add([user], frame('directJoined', by, user));
      break;
    case 'join':
      for (const user of event.users) {
        // An invitation accepted: its inviter is told, the invitee joined by their own answer.
        if (event.inviter !== undefined) add([event.inviter], frame('acceptInvite', user, event.inviter));
        else if (event.kind === 'group' && event.way !== 'APPLY') add([user], frame('directJoined', by, user));
        // A request to join accepted by the owner.
        if (event.way === 'APPLY' && event.operator !== user) add([user], frame('acceptRequest', by, user));
        add(others(user, event.operator), frame('memberPresence', user));
      }
      break;
    case 'leave':
      add(others(event.user), frame('memberAbsence', event.user));
      break;
    case 'kick':
      add([event.user], frame('removeMember', by, event.user));
      add(others(event.user, event.operator), frame('memberAbsence', event.user));
      break;
    case 'destroy':
      add(event.members.filter((m) => m !== event.operator), frame('destroy', by));
      break;
    case 'owner':
      add(others(event.operator), frame('changeOwner', event.previous, event.owner));
      break;
    case 'update':
      add(others(event.operator), frame('updateInfo', by));
      break;
    case 'apply':
      add([event.owner], frame('requestToJoin', event.user, event.owner, event.reason));
      break;
    case 'decline':
      add([event.user], frame('joinPublicGroupDeclined', by, event.user, event.reason));
      break;
    case 'invite':
      for (const user of event.users) add([user], frame('inviteToJoin', by, user, event.reason));
      break;
    case 'inviteDecline':
      add([event.inviter], frame('rejectInvite', event.user, event.inviter));
      break;
    default:
      roleNotices(event, by, frame, others, add);
  }
  return notices;
}

type FrameOf = (operation: ImGroupOperation, from: string, to?: string) => ImGroupEventFrame;

/** The notices of admins, mutes, block and allow lists, announcements (group-roles.ts) and shared files (shared-files.ts). */
function roleNotices(event: GroupOperationEvent, by: string, frame: FrameOf, others: (...skip: Array<string | null>) => string[], add: (to: string[], f: ImGroupEventFrame) => void): void {
  switch (event.op) {
    case 'admin':
      add(others(event.operator), frame(event.added ? 'setAdmin' : 'removeAdmin', by, event.user));
      break;
    case 'mute':
      for (const user of event.users) add([user], { ...frame('muteMember', by, user), mute_until: event.expiresAt });
      break;
    case 'unmute':
      for (const user of event.users) add([user], frame('unmuteMember', by, user));
      break;
    case 'block':
      // A blocked member is removed, as by a kick.
      for (const user of event.removed) {
        add([user], frame('removeMember', by, user));
        add(others(user, event.operator), frame('memberAbsence', user));
      }
      break;
    case 'allow':
      for (const user of event.users) add([user], frame(event.added ? 'addUserToAllowlist' : 'removeAllowlistMember', by, user));
      break;
    case 'announcement':
      add(others(event.operator), { ...frame('updateAnnouncement', by), announcement: event.text });
      break;
    case 'muteAll':
      add(others(event.operator), frame(event.muted ? 'muteAllMembers' : 'unmuteAllMembers', by));
      break;
    case 'shareFile':
      add(others(event.operator), { ...frame(event.added ? 'uploadFile' : 'deleteFile', by), file_id: event.fileId, file_name: event.fileName });
      break;
    default:
      break;
  }
}

/** The subscriber that sends the notices to the members' sockets, kept for the offline users `keptOffline` names. */
export function groupNotifier(groups: Pick<ImGroupsRepository, 'members'>, deliver: GroupNoticeDelivery): GroupEventListener {
  return async (event) => {
    const members = event.op === 'destroy' ? [] : (await groups.members(event.groupId)).map((m) => m.username);
    await Promise.all(noticesOf(event, members).map((notice) => deliver(event.appId, notice.to, notice.frame, (user) => keptOffline(notice.frame, user))));
  };
}
