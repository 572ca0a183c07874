/**
 * The backup commands of src/admin-cli.ts (`backup`, `restore`, `copy-to`): each runs on the
 * configured installation and answers with the lines to print (counts per table, then one final
 * line on stdout; progress on stderr as it goes).
 */
import type { Config } from '../config/index.js';
import { backup } from '../storage/backup/backup.js';
import { copyTo, type CopyOptions } from '../storage/backup/copy-to.js';
import { restore } from '../storage/backup/restore.js';

type Installation = Pick<Config, 'databaseUrl' | 'dataDir' | 'secretKey'>;

const progress = (line: string) => process.stderr.write(`${line}\n`);

function countLines(counts: ReadonlyArray<readonly [string, number]>): string[] {
  return counts.map(([table, n]) => `${table}\t${n}`);
}

function where(config: Installation): string {
  // The PostgreSQL URL may hold a password: name the engine only.
  return config.databaseUrl ? 'the PostgreSQL database of DATABASE_URL' : config.dataDir;
}

export async function backupCommand(config: Installation, file: string): Promise<string[]> {
  const started = Date.now();
  const result = await backup(config, file, progress);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  return [
    ...countLines(result.counts),
    `Backed up ${where(config)} (${result.engine}, schema ${result.schemaVersion}, ${result.mediaFiles} media files${result.key ? ', the secret key' : ', no secret key'}) to ${file}: ${result.bytes} bytes in ${seconds} s.`,
  ];
}

export async function restoreCommand(config: Installation, file: string): Promise<string[]> {
  const result = await restore(file, config, progress);
  return [
    ...countLines(result.counts),
    `Restored ${file} (${result.header.engine}, schema ${result.header.schemaVersion}, taken ${result.header.createdAt}, ${result.mediaFiles} media files) into ${where(config)}; start Parley on it as before.`,
  ];
}

export async function copyToCommand(config: Installation, url: string, options: CopyOptions): Promise<string[]> {
  const started = Date.now();
  const result = await copyTo(config, url, { ...options, progress });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const total = result.counts.reduce((sum, [, n]) => sum + n, 0);
  return [
    ...countLines(result.counts),
    `Copied ${config.dataDir} (schema ${result.schemaVersion}${result.resumed ? ', resumed' : ''}) into the PostgreSQL database: ${total} rows in ${seconds} s. Start it with DATABASE_URL set to that database and the same DATA_DIR (key and media).`,
  ];
}
