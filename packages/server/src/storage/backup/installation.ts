/**
 * What an installation keeps beside its database: the sealed-secret key (PARLEY_SECRET_KEY, or
 * DATA_DIR/secret.key) and the media files (DATA_DIR/media), and what "empty" means for DATA_DIR.
 */
import fs from 'node:fs';
import path from 'node:path';
import { postgresMigrations } from '../postgres/migrations/index.js';
import { sqliteMigrations } from '../sqlite/migrations/index.js';
import type { Engine, Migration } from '../types.js';
import { Refused } from './refusal.js';

export const DB_FILE = 'parley.db';
export const KEY_FILE = 'secret.key';
export const MEDIA_DIR = 'media';
/** Files whose presence makes a DATA_DIR not empty (the SQLite file, its journal, the key, media). */
const PARLEY_FILES = [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, `${DB_FILE}-journal`, KEY_FILE];

export function migrationsOf(engine: Engine): readonly Migration[] {
  return engine === 'sqlite' ? sqliteMigrations : postgresMigrations;
}

/** The newest schema version this build knows for the engine. */
export function knownSchemaVersion(engine: Engine): number {
  return migrationsOf(engine).reduce((max, m) => Math.max(max, m.version), 0);
}

/** The key in effect: the configured one, or the one in DATA_DIR (undefined when neither exists). */
export function currentKey(configured: Buffer | undefined, dataDir: string): Buffer | undefined {
  if (configured) return configured;
  const file = path.join(dataDir, KEY_FILE);
  if (!fs.existsSync(file)) return undefined;
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  if (key.length !== 32) throw new Refused(`${file} does not hold a 32-byte hex key`);
  return key;
}

/** The media files' names (flat folder), sorted. */
export function mediaFiles(dataDir: string): string[] {
  const dir = path.join(dataDir, MEDIA_DIR);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

/** Refuses a DATA_DIR holding Parley files: `database` includes the SQLite files and the key. */
export function assertDataDirEmpty(dataDir: string, database: boolean): void {
  if (database) {
    const found = PARLEY_FILES.find((name) => fs.existsSync(path.join(dataDir, name)));
    if (found) throw new Refused(`${dataDir} is not empty (it holds ${found}); restore into an empty DATA_DIR`);
  }
  if (mediaFiles(dataDir).length > 0) throw new Refused(`${path.join(dataDir, MEDIA_DIR)} is not empty; restore into a DATA_DIR without media files`);
}
