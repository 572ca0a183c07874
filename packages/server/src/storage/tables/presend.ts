import type { Generated } from 'kysely';

/** Pre-send callback rules (modules/callbacks/presend). */
export interface PresendRulesTable {
  id: Generated<number>;
  app_id: string;
  slot: number;
  name: string;
  url: string;
  timeout_ms: number;
  on_failure: 'allow' | 'reject';
  /** JSON arrays of strings. */
  chat_types: string;
  message_types: string;
  /** Sealed; never logged; returned only to the app's admin. */
  secret: string;
  created_at: number;
  updated_at: number;
}

export interface PresendTables {
  presend_rules: PresendRulesTable;
}
