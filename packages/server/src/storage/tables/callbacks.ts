import type { Generated } from 'kysely';

export interface CallbackSettingsTable {
  app_id: string;
  /** 0/1 */
  enabled: number;
  /** 0/1 */
  store_failed: number;
  updated_at: number;
}

export interface CallbackRulesTable {
  id: Generated<number>;
  app_id: string;
  slot: number;
  name: string;
  url: string;
  /** 0/1 */
  enabled: number;
  /** JSON arrays of strings. */
  event_types: string;
  chat_types: string;
  message_types: string;
  sources: string;
  /** Never logged; returned only to the app's admin. */
  secret: string;
  /** The secret before the last rotation, sealed, valid until `previous_secret_until` (ms); NULL: no overlap. */
  previous_secret: Generated<string | null>;
  previous_secret_until: Generated<number | null>;
  /** 0/1: re-send the records stored during a ban when it ends. */
  redrive: Generated<number>;
  status: Generated<'active' | 'banned'>;
  ban_count: Generated<number>;
  banned_until: number | null;
  /** JSON BanState (windows and streak), see modules/callbacks/ban.ts. */
  ban_state: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface CallbackStoredTable {
  id: Generated<number>;
  app_id: string;
  date_key: string;
  call_id: string;
  rule_id: number | null;
  rule_name: string;
  event_type: string;
  msg_id: string;
  /** JSON of the unsigned record. */
  record: string;
  last_error: string;
  stored_at: number;
  /** Outcome of the last re-send; null until the record is re-sent. */
  resend_result: Generated<'success' | 'failure' | null>;
  resent_at: Generated<number | null>;
}

export interface CallbackStoreKeysTable {
  app_id: string;
  date_key: string;
  retry: Generated<number>;
  /** Records stored under the key (kept by the repository on store and sweep). */
  size: Generated<number>;
  /** When the key's first record was stored (ms); null for a key holding none yet. */
  first_stored_at: Generated<number | null>;
  /** When `store.expiring` was raised for the key (ms); null: not yet. */
  expiring_noticed_at: Generated<number | null>;
  updated_at: number;
}

export interface CallbacksTables {
  callback_settings: CallbackSettingsTable;
  callback_rules: CallbackRulesTable;
  callback_stored: CallbackStoredTable;
  callback_store_keys: CallbackStoreKeysTable;
}
