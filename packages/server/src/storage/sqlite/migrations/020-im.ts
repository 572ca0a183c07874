import type { Migration } from '../../types.js';

/** IM core: apps, tokens, users, groups and chat rooms, messages, offline store, moderation. */
export const im: Migration = {
  version: 20,
  name: 'im',
  statements: [
    `CREATE TABLE im_apps (
      id TEXT PRIMARY KEY,
      org_name TEXT NOT NULL,
      app_name TEXT NOT NULL,
      client_id TEXT NOT NULL UNIQUE,
      client_secret_hash TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (org_name, app_name)
    )`,
    `CREATE TABLE im_tokens (
      token_hash TEXT PRIMARY KEY,
      app_id TEXT NOT NULL REFERENCES im_apps(id) ON DELETE CASCADE,
      username TEXT,
      expires_at INTEGER NOT NULL
    )`,
    `CREATE INDEX im_tokens_expiry ON im_tokens (expires_at)`,
    `CREATE INDEX im_tokens_user ON im_tokens (app_id, username)`,
    `CREATE TABLE im_users (
      app_id TEXT NOT NULL REFERENCES im_apps(id) ON DELETE CASCADE,
      username TEXT NOT NULL,
      uuid TEXT NOT NULL,
      password_hash TEXT NOT NULL,
      nickname TEXT,
      created_at INTEGER NOT NULL,
      modified_at INTEGER NOT NULL,
      PRIMARY KEY (app_id, username)
    )`,
    `CREATE TABLE im_groups (
      id TEXT PRIMARY KEY,
      app_id TEXT NOT NULL REFERENCES im_apps(id) ON DELETE CASCADE,
      kind TEXT NOT NULL CHECK (kind IN ('group', 'chatroom')),
      name TEXT NOT NULL,
      description TEXT NOT NULL,
      public INTEGER NOT NULL,
      maxusers INTEGER NOT NULL,
      owner TEXT NOT NULL,
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX im_groups_app ON im_groups (app_id, kind)`,
    `CREATE TABLE im_members (
      group_id TEXT NOT NULL REFERENCES im_groups(id) ON DELETE CASCADE,
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
      joined_at INTEGER NOT NULL,
      PRIMARY KEY (group_id, username)
    )`,
    `CREATE INDEX im_members_user ON im_members (app_id, username)`,
    `CREATE TABLE im_messages (
      app_id TEXT NOT NULL REFERENCES im_apps(id) ON DELETE CASCADE,
      msg_id INTEGER NOT NULL,
      sender TEXT NOT NULL,
      receiver TEXT NOT NULL,
      chat_type TEXT NOT NULL CHECK (chat_type IN ('chat', 'groupchat', 'chatroom')),
      source TEXT NOT NULL CHECK (source IN ('rest', 'sdk')),
      timestamp INTEGER NOT NULL,
      payload TEXT NOT NULL,
      fanout_done INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, msg_id)
    )`,
    `CREATE TABLE im_offline (
      app_id TEXT NOT NULL,
      username TEXT NOT NULL,
      msg_id INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('undelivered', 'delivered')),
      created_at INTEGER NOT NULL,
      delivered_at INTEGER,
      PRIMARY KEY (app_id, username, msg_id),
      FOREIGN KEY (app_id, msg_id) REFERENCES im_messages(app_id, msg_id) ON DELETE CASCADE
    )`,
    `CREATE INDEX im_offline_pending ON im_offline (app_id, username, status, msg_id)`,
    `CREATE TABLE im_sensitive_words (
      app_id TEXT PRIMARY KEY REFERENCES im_apps(id) ON DELETE CASCADE,
      words TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    )`,
  ],
};
