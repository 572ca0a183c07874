/** Tables of the IM module (migration 20). Timestamps are ms; booleans INTEGER 0/1; JSON as TEXT. */
import type { Generated } from 'kysely';

export interface ImAppsTable {
  /** The app UUID (`application` in envelopes). */
  id: string;
  org_name: string;
  app_name: string;
  client_id: string;
  /** sha256 hex of the client secret; the secret itself is shown once. */
  client_secret_hash: string;
  /** sha256 hex of the client secret before the last rotation, valid until `previous_secret_until` (ms); NULL: no overlap. */
  previous_client_secret_hash: Generated<string | null>;
  previous_secret_until: Generated<number | null>;
  created_at: number;
}

export interface ImTokensTable {
  /** sha256 hex of the bearer token. */
  token_hash: string;
  app_id: string;
  /** null: an app-admin token (client_credentials); else the user it was issued to. */
  username: string | null;
  expires_at: number;
}

export interface ImUsersTable {
  app_id: string;
  username: string;
  uuid: string;
  password_hash: string;
  nickname: string | null;
  created_at: number;
  modified_at: number;
}

export interface ImGroupsTable {
  /** Decimal string id, unique across apps. */
  id: string;
  app_id: string;
  kind: 'group' | 'chatroom';
  name: string;
  description: string;
  public: number;
  maxusers: number;
  owner: string;
  created_at: number;
  /** Last edit, ms (migration 72; created_at for older rows). */
  modified_at: number;
  /** Joining needs the owner (migration 105, as the settings below). */
  approval: Generated<number>;
  allow_invites: Generated<number>;
  invite_need_confirm: Generated<number>;
  custom: Generated<string>;
  avatar: Generated<string>;
}

/** Requests to join a group that needs its owner's approval (migration 106). */
export interface ImGroupRequestsTable {
  group_id: string;
  app_id: string;
  username: string;
  reason: string;
  created_at: number;
}

/** Admins, mutes, block and allow lists of a group (migration 120). */
export interface ImGroupListsTable {
  group_id: string;
  list: 'admin' | 'mute' | 'block' | 'allow';
  app_id: string;
  username: string;
  /** A mute's end, ms; null: until unmuted (and for the other lists). */
  expires_at: number | null;
  created_at: number;
}

/** A group's announcement and mute of all members (migration 121). */
export interface ImGroupNotesTable {
  group_id: string;
  announcement: Generated<string>;
  all_muted: Generated<number>;
  modified_at: number;
}

export interface ImMembersTable {
  group_id: string;
  app_id: string;
  username: string;
  role: 'owner' | 'member';
  joined_at: number;
}

export interface ImMessagesTable {
  app_id: string;
  /** Decimal id, increasing with time; fits a double (see modules/im/msg-id.ts). */
  msg_id: number;
  sender: string;
  /** User name for `chat`, group or room id otherwise. */
  receiver: string;
  chat_type: 'chat' | 'groupchat' | 'chatroom';
  source: 'rest' | 'sdk';
  timestamp: number;
  /** JSON `{bodies, ext}`. */
  payload: string;
  /**
   * Neither read nor written since migration 115 (the pending fan-out is `im_pending_fanout`); rows
   * stored before it hold 1 once their fan-out ran, later rows 0.
   */
  fanout_done: Generated<number>;
  /** JSON array of the receivers pushed live by `live_by` (an instance id); both NULL when none (migration 77). */
  live: string | null;
  live_by: string | null;
  /** 1: for online receivers only, never stored offline (migration 85). */
  online_only: Generated<number>;
  /** Times the message was edited (migration 85). */
  edits: Generated<number>;
}

/**
 * A message whose fan-out has not run yet (migration 115): inserted with the message, deleted by
 * the fan-out that stores its offline rows; gone with the message.
 */
export interface ImPendingFanoutTable {
  app_id: string;
  msg_id: number;
  /** The message's receiver: a user name for `chat`, the group or room id otherwise. */
  receiver: string;
  chat_type: 'chat' | 'groupchat' | 'chatroom';
}

export interface ImOfflineTable {
  app_id: string;
  username: string;
  msg_id: number;
  status: 'undelivered' | 'delivered';
  created_at: number;
  delivered_at: number | null;
  /** On a user's own copy of a message they sent: the resource that sent it ('' none); NULL otherwise (migration 135). */
  sent_from: Generated<string | null>;
}

/** A device (resource) that took a user's own copy (migration 139). */
export interface ImOfflineTakesTable {
  app_id: string;
  username: string;
  msg_id: number;
  resource: string;
}

/** A device (resource) that took a user's own kept recall or edit (migration 139). */
export interface ImPendingEventTakesTable {
  app_id: string;
  username: string;
  id: number;
  resource: string;
}

/** A device a user logged in with (migration 135). */
export interface ImDevicesTable {
  app_id: string;
  username: string;
  resource: string;
  seen_at: number;
}

/** One reader of a group message (migration 86). */
export interface ImGroupReadsTable {
  app_id: string;
  msg_id: number;
  username: string;
  read_at: number;
}

/** A receipt or recall frame kept for a user no socket of whom was reached (migration 86). */
export interface ImPendingEventsTable {
  app_id: string;
  username: string;
  id: number;
  /** The frame as JSON. */
  frame: string;
  created_at: number;
  /** On a user's own recall or edit kept for their other devices: the resource that made it (migration 135). */
  sent_from: Generated<string | null>;
}

export interface ImSensitiveWordsTable {
  app_id: string;
  /** JSON array of lower-case words. */
  words: string;
  updated_at: number;
}

/** A chat file's row in the media store (migration 82). */
export interface ImFilesTable {
  id: string;
  app_id: string;
  /** SHA-256 (hex) of the share secret handed to the uploader. */
  secret_hash: string;
  filename: string;
  content_type: string;
  size: number;
  created_at: number;
  /** A group's or room's shared file (migration 138): its `im_groups.id`; NULL for a chat file. */
  group_id: string | null;
  /** Who uploaded a shared file; NULL for the app (or a chat file). */
  owner: string | null;
}

/** A user's marks on a conversation (migration 84); 0: none. */
export interface ImConversationMarksTable {
  app_id: string;
  username: string;
  kind: 'chat' | 'group';
  /** The peer's user name, or the group id. */
  peer: string;
  read_msg_id: Generated<number>;
  hidden_msg_id: Generated<number>;
  cleared_msg_id: Generated<number>;
  /** When the user pinned the conversation (ms), 0 when not pinned. */
  pinned_at: Generated<number>;
  /** The user's Easemob marks on it (migration 125): bit n set for `mark_n`, 0 when none. */
  mark_set: Generated<number>;
}

export interface ImTables {
  im_apps: ImAppsTable;
  im_tokens: ImTokensTable;
  im_users: ImUsersTable;
  im_groups: ImGroupsTable;
  im_members: ImMembersTable;
  im_group_requests: ImGroupRequestsTable;
  im_group_lists: ImGroupListsTable;
  im_group_notes: ImGroupNotesTable;
  im_messages: ImMessagesTable;
  im_pending_fanout: ImPendingFanoutTable;
  im_offline: ImOfflineTable;
  im_devices: ImDevicesTable;
  im_group_reads: ImGroupReadsTable;
  im_pending_events: ImPendingEventsTable;
  im_sensitive_words: ImSensitiveWordsTable;
  im_files: ImFilesTable;
  im_offline_takes: ImOfflineTakesTable;
  im_pending_event_takes: ImPendingEventTakesTable;
  im_conversation_marks: ImConversationMarksTable;
}
