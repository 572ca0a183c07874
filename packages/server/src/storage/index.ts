/**
 * The storage factory: the one place that chooses the engine, by config.
 */
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { Clock } from '../kernel/clock.js';
import { migrate } from './migrate.js';
import { openPostgres } from './postgres/open.js';
import { openSqlite } from './sqlite/open.js';
import type { Storage } from './types.js';

export type { Storage, Capabilities, Engine } from './types.js';

export async function openStorage(config: Pick<Config, 'databaseUrl' | 'dataDir'>, clock: Clock): Promise<Storage> {
  const opened = config.databaseUrl
    ? openPostgres(config.databaseUrl)
    : { ...openSqlite(path.join(config.dataDir, 'parley.db')), lock: undefined };
  try {
    const schemaVersion = await migrate(opened.db, opened.migrations, { now: () => clock.now(), lock: opened.lock });
    return {
      db: opened.db,
      capabilities: opened.capabilities,
      schemaVersion,
      ping: opened.ping,
      close: opened.close,
    };
  } catch (error) {
    await opened.close();
    throw error;
  }
}
