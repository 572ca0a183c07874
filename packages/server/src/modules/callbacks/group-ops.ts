/**
 * `group_op_event` (contract 6.7b): group and chat-room operations as post-send callback records,
 * in Easemob's shape (`callback_group_room_*`: top-level `event`, `type` GROUP|CHATROOM,
 * `operation`, `operator`, `id`, `payload`). Pure. The records are routed as the rest of the
 * event catalogue (catalogue.ts `routeOperation`, through the operation hook, hook.ts): their
 * delivery jobs are written in the operation's own transaction, and delivered as message records are.
 */
import type { GroupOperationEvent } from '../im/group-events.js';

/** A group or chat-room operation record (`group_op_event`, Easemob's shape; this file), before signing. */
export interface GroupOpRecord {
  callId: string;
  payload?: Record<string, unknown>;
  appkey: string;
  id: string;
  type: 'GROUP' | 'CHATROOM';
  event: 'group_op_event';
  operation: 'CREATE' | 'DELETE' | 'JOIN' | 'LEAVE' | 'UPDATE' | 'MUTE' | 'SHARE_FILE';
  operator: string;
  member_count?: number;
  timestamp: number;
}

/** The operator Easemob names for the app admin. */
export const APP_ADMIN_OPERATOR = '@ppAdmin';

/** Easemob writes the group's settings as strings in a creation record. */
const text = (value: boolean | number) => String(value);

/**
 * The records of one operation: one for most; a creation with members also has their JOIN
 * (`DIRECT`), a deletion the members' LEAVE (`DELETE`), as Easemob sends them. An edit of the
 * group's texts, a request to join and its refusal have none (an accepted request is a JOIN); so
 * have invitations held for the invitee's confirmation and their refusals (an accepted one is a
 * JOIN of type INVITE). A mute or unmute is a MUTE (`ADD` with its end, `REMOVE`); a shared file
 * uploaded or deleted a SHARE_FILE (`ADD`, `DELETE`); admins, block and allow lists, announcements
 * and the mute of all have none yet.
 */
export function groupOpRecords(event: GroupOperationEvent, newUuid: () => string): GroupOpRecord[] {
  const record = (operation: GroupOpRecord['operation'], payload?: Record<string, unknown>, memberCount?: number): GroupOpRecord => ({
    callId: `${event.appkey}_${newUuid()}`,
    ...(payload ? { payload } : {}),
    appkey: event.appkey,
    id: event.groupId,
    type: event.kind === 'group' ? 'GROUP' : 'CHATROOM',
    event: 'group_op_event',
    operation,
    operator: event.operator ?? APP_ADMIN_OPERATOR,
    ...(memberCount === undefined ? {} : { member_count: memberCount }),
    timestamp: event.timestamp,
  });
  switch (event.op) {
    case 'create': {
      const info = {
        owner: `${event.appkey}_${event.owner}`,
        created: text(event.createdAt),
        custom: event.settings.custom,
        description: event.description,
        mute: 'false',
        avatar: event.settings.avatar,
        title: event.groupName,
        max_users: text(event.maxusers),
        invite_need_confirm: text(event.settings.inviteNeedConfirm),
        public: text(event.public),
        allow_user_invites: text(event.settings.allowInvites),
        disabled: 'false',
        last_modified: text(event.createdAt),
      };
      const created = record('CREATE', { role: { [event.owner]: 'owner' }, member: event.members, info });
      return event.members.length === 0 ? [created] : [created, record('JOIN', { member: event.members, type: 'DIRECT' }, event.memberCount)];
    }
    case 'destroy':
      return [record('DELETE'), record('LEAVE', { member: event.members, type: 'DELETE' })];
    case 'join':
      return [record('JOIN', { member: event.users, type: event.way }, event.memberCount)];
    case 'leave':
      return [record('LEAVE', { member: [event.user], type: 'QUIT' })];
    case 'kick':
      return [record('LEAVE', { member: [event.user], type: 'KICK' })];
    case 'owner':
      return [record('UPDATE', { owner: event.previous, new_owner: event.owner, type: 'OWNER' })];
    case 'mute':
      return [record('MUTE', { member: event.users, expire_timestamp: event.expiresAt, type: 'ADD' })];
    case 'unmute':
      return [record('MUTE', { member: event.users, type: 'REMOVE' })];
    case 'shareFile':
      return [record('SHARE_FILE', { share_file: [event.fileId], type: event.added ? 'ADD' : 'DELETE' })];
    case 'update':
    case 'apply':
    case 'decline':
    case 'invite':
    case 'inviteDecline':
    case 'admin':
    case 'block':
    case 'allow':
    case 'announcement':
    case 'muteAll':
      return [];
  }
}
