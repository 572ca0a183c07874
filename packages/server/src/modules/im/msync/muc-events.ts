/**
 * Group and chat-room notices (`group_event` frames) as the SDK reads them: a meta of namespace MUC
 * whose payload is a MUCBody{mucId, operation, from, to[], reason, isChatroom, mucName, mucMemberCount, ext};
 * the SDK raises `onGroupEvent` (`onChatroomEvent` for rooms) with the operation's name, `id` the
 * group, `from` who did it. The meta sits in the group's queue. Pure.
 */
import type { ImGroupEventFrame } from '@parley/protocol';
import { encodeMucBody, type Jid, type MetaOut } from './codec.js';
import { groupJid, userJid } from './contents.js';
import { MucOperation, Namespace } from './schema.js';

const OPERATIONS: Record<ImGroupEventFrame['operation'], number> = {
  directJoined: MucOperation.DIRECT_JOINED,
  memberPresence: MucOperation.PRESENCE,
  memberAbsence: MucOperation.ABSENCE,
  removeMember: MucOperation.KICK,
  destroy: MucOperation.DESTROY,
  changeOwner: MucOperation.ASSIGN_OWNER,
  updateInfo: MucOperation.UPDATE,
  requestToJoin: MucOperation.APPLY,
  acceptRequest: MucOperation.APPLY_ACCEPT,
  joinPublicGroupDeclined: MucOperation.APPLY_DECLINE,
  inviteToJoin: MucOperation.INVITE,
  acceptInvite: MucOperation.INVITE_ACCEPT,
  rejectInvite: MucOperation.INVITE_DECLINE,
  setAdmin: MucOperation.ADD_ADMIN,
  removeAdmin: MucOperation.REMOVE_ADMIN,
  muteMember: MucOperation.ADD_MUTE,
  unmuteMember: MucOperation.REMOVE_MUTE,
  addUserToAllowlist: MucOperation.ADD_ALLOWLIST,
  removeAllowlistMember: MucOperation.REMOVE_ALLOWLIST,
  updateAnnouncement: MucOperation.UPDATE_ANNOUNCEMENT,
  muteAllMembers: MucOperation.MUTE_ALL,
  unmuteAllMembers: MucOperation.UNMUTE_ALL,
  uploadFile: MucOperation.UPLOAD_FILE,
  deleteFile: MucOperation.DELETE_FILE,
};

/** The queue a notice is pulled from: the group's (or room's). */
export const mucQueue = (appKey: string, frame: ImGroupEventFrame): Jid => groupJid(appKey, frame.group_id);

/**
 * The meta of a notice. `id` comes from the generator of message ids: it shares the group's queue
 * with the group's messages, and a meta id seen twice in one queue is one meta.
 */
export function mucMeta(appKey: string, frame: ImGroupEventFrame, id: string): MetaOut {
  const group = groupJid(appKey, frame.group_id);
  const from = userJid(appKey, frame.from);
  const payload = encodeMucBody({
    mucId: group,
    operation: OPERATIONS[frame.operation],
    from,
    to: frame.to === undefined ? [] : [userJid(appKey, frame.to)],
    // The SDK reads an announcement from `reason`, a mute's end from `ext`'s user_mute_time.
    ...(frame.reason ? { reason: frame.reason } : {}),
    ...(frame.announcement === undefined ? {} : { reason: frame.announcement }),
    ...(frame.mute_until === undefined ? {} : { ext: JSON.stringify({ user_mute_time: frame.mute_until }) }),
    isChatroom: frame.chat_type === 'chatroom',
    mucName: frame.group_name,
    ...(frame.member_count === undefined ? {} : { mucMemberCount: frame.member_count }),
  });
  return { id, from, to: group, timestamp: frame.timestamp, ns: Namespace.MUC, payload };
}
