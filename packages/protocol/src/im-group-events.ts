/**
 * Something happened in a group or chat room the user is in (or was, or applied to): `operation` is
 * the name Easemob's Web SDK gives it in `onGroupEvent` / `onChatroomEvent`. `from` did it (or is the
 * member who joined or left; `admin` for the app token), `to` is the user it was done to.
 */
export interface ImGroupEventFrame {
  op: 'group_event';
  operation: ImGroupOperation;
  chat_type: 'groupchat' | 'chatroom';
  group_id: string;
  group_name: string;
  from: string;
  to?: string;
  reason?: string;
  /** `updateAnnouncement`: the new announcement. */
  announcement?: string;
  /** `muteMember`: when the mute ends (ms; -1: until unmuted). */
  mute_until?: number;
  /** `uploadFile`, `deleteFile`: the shared file. */
  file_id?: string;
  file_name?: string;
  member_count?: number;
  timestamp: number;
}
export type ImGroupOperation =
  | 'directJoined'
  | 'memberPresence'
  | 'memberAbsence'
  | 'removeMember'
  | 'destroy'
  | 'changeOwner'
  | 'updateInfo'
  | 'requestToJoin'
  | 'acceptRequest'
  | 'joinPublicGroupDeclined'
  | 'inviteToJoin'
  | 'acceptInvite'
  | 'rejectInvite'
  | 'setAdmin'
  | 'removeAdmin'
  | 'muteMember'
  | 'unmuteMember'
  | 'addUserToAllowlist'
  | 'removeAllowlistMember'
  | 'updateAnnouncement'
  | 'muteAllMembers'
  | 'unmuteAllMembers'
  | 'uploadFile'
  | 'deleteFile';
