import type { Kysely } from 'kysely';
import type { DirectRunner } from './precompiled.js';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

/**
 * What an engine can do, so domain code asks for a capability instead of checking the engine.
 */
export interface Capabilities {
  readonly engine: Engine;
  /** `SELECT ... FOR UPDATE SKIP LOCKED` is available for claiming work. */
  readonly skipLocked: boolean;
  /** LISTEN/NOTIFY is available to wake other processes. */
  readonly listenNotify: boolean;
  /** Several processes may write concurrently (false: one writer process at a time). */
  readonly multiWriter: boolean;
}

export interface Storage {
  readonly db: Kysely<Database>;
  readonly capabilities: Capabilities;
  /** SQLite: run a statement on the one connection, inside a transaction's callback (precompiled.ts). */
  readonly direct?: DirectRunner;
  /** Schema version after migrations. */
  readonly schemaVersion: number;
  /** Cheap round trip used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface Migration {
  readonly version: number;
  readonly name: string;
  /** SQL statements run in order inside one transaction. */
  readonly statements: readonly string[];
}
