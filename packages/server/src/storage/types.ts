import type { Kysely } from 'kysely';
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
  /**
   * Inside a transaction, precompiled statements can run straight on the driver, synchronously
   * (SQLite: storage/sqlite/direct-runner.ts, its runner from `directRunnerOf(db)`).
   */
  readonly directStatements: boolean;
}

export interface Storage {
  readonly db: Kysely<Database>;
  readonly capabilities: Capabilities;
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
