/**
 * `npm run admin -- backup <file>` and `restore <file>`: the built command run as an operator
 * does, against a real service process on each engine. A backup taken while a burst of sends is
 * in flight restores into an empty target, and the service started on it is the same
 * installation: old Client Secret, old IM passwords, old rule secret, media, and no row missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupWriter } from '../../src/storage/backup/container.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { admin, appToken, envOf, expectSameInstallation, populate, sendCustomer, sendIm, tableCounts, type Fixture } from '../helpers/installation.js';
import { startParley, type ParleyProcess } from '../helpers/process.js';

/** Files of a folder, recursively, with their sizes: "left as it was" is this listing unchanged. */
function listing(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => `${path.relative(dir, path.join(e.parentPath, e.name))}:${e.isFile() ? fs.statSync(path.join(e.parentPath, e.name)).size : 'dir'}`).sort();
}

describe.each(ENGINES)('backup and restore on %s', (engine) => {
  const dbs: TestDatabase[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-backup-'));
  const file = path.join(scratch, 'installation.parley-backup');
  let source: TestDatabase;
  let receiver: CallbackReceiver;
  let fixture: Fixture;
  /** Rows of the source just before the backup began. */
  let before: Record<string, number>;
  /** Tables rows are only added to while the burst runs. */
  const GROWING = ['tenants', 'users', 'rest_channels', 'channel_visitors', 'conversations', 'channel_messages', 'channel_media', 'im_apps', 'im_users', 'im_messages', 'callback_rules'];
  const fresh = async () => {
    const db = await createTestDatabase(engine);
    dbs.push(db);
    return db;
  };

  beforeAll(async () => {
    receiver = await CallbackReceiver.start();
    source = await fresh();
  });
  afterAll(async () => {
    await receiver?.close();
    for (const db of dbs) await db.destroy();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('takes one file while a burst of sends is in flight, and the service keeps answering', async () => {
    const running: ParleyProcess = await startParley(envOf(source));
    try {
      fixture = await populate(running.url, receiver.url);
      const token = await appToken(running.url, fixture.im);
      before = await tableCounts(source.config);
      // The burst: sends keep going until the backup has finished.
      let done = false;
      const statuses: number[] = [];
      const burst = (async () => {
        for (let i = 0; !done || i < 20; i++) {
          statuses.push(...(await Promise.all([sendIm(running.url, fixture.im, token, `burst ${i}`), sendCustomer(running.url, fixture.association, `burst-${i % 5}`, `burst ${i}`)])));
        }
      })();
      const result = await admin(envOf(source), ['backup', file]);
      done = true;
      await burst;
      expect(result.stderr).not.toContain('parley admin:');
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^Backed up .* to .*: \d+ bytes in [\d.]+ s\.$/);
      expect(statuses.length).toBeGreaterThanOrEqual(40);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(fs.existsSync(`${file}.partial`)).toBe(false);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await running.stop();
    }
  }, 120_000);

  it('refuses a damaged, cut short or foreign file, a newer schema and a different key, leaving the target as it was', async () => {
    const target = await fresh();
    const before = listing(target.config.dataDir);
    const bytes = fs.readFileSync(file);
    const damaged = path.join(scratch, 'damaged');
    const flipped = Buffer.from(bytes);
    const middle = Math.floor(flipped.length / 2);
    flipped[middle] = (flipped[middle] as number) ^ 0xff;
    fs.writeFileSync(damaged, flipped);
    const truncated = path.join(scratch, 'truncated');
    fs.writeFileSync(truncated, bytes.subarray(0, bytes.length - 100));
    const foreign = path.join(scratch, 'foreign.tar');
    fs.writeFileSync(foreign, 'ustar\0 a file of another program');
    const newer = path.join(scratch, 'newer');
    const writer = new BackupWriter(newer);
    writer.header({ engine, schemaVersion: 99_999, createdAt: new Date().toISOString() });
    writer.finish();
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      [damaged, {}, /damaged or cut short/],
      [truncated, {}, /damaged or cut short/],
      [foreign, {}, /is not a Parley backup/],
      [path.join(scratch, 'missing'), {}, /cannot read/],
      [newer, {}, /schema version 99999, newer than this Parley build supports/],
      [file, { PARLEY_SECRET_KEY: 'ab'.repeat(32) }, /PARLEY_SECRET_KEY differs from the key in the backup/],
    ];
    for (const [input, extra, reason] of cases) {
      const result = await admin(envOf(target, extra), ['restore', input]);
      expect(result.code, input).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(reason);
      expect(listing(target.config.dataDir)).toEqual(before);
      expect(Object.keys(target.config.databaseUrl ? await tableCounts(target.config) : {})).toEqual([]);
    }
    // The installation the backup came from is not empty.
    const onSource = await admin(envOf(source), ['restore', file]);
    expect(onSource.code).toBe(1);
    expect(onSource.stderr).toMatch(/not empty/);
    const usage = await admin(envOf(target), ['restore']);
    expect(usage.code).toBe(2);
  }, 120_000);

  it('restores into an empty target, and the service started on it is the same installation', async () => {
    const target = await fresh();
    const result = await admin(envOf(target), ['restore', file]);
    expect(result.stderr).not.toContain('parley admin:');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^Restored .* into .*; start Parley on it as before\.$/);
    const counts = await tableCounts(target.config);
    const final = await tableCounts(source.config);
    // Every table is there; what was stored before the backup began is all in, and the burst's
    // rows up to the snapshot (never more than the source holds at its end).
    expect(Object.keys(counts).sort()).toEqual(Object.keys(final).sort());
    for (const table of GROWING) {
      expect(before[table], table).toBeGreaterThan(0);
      expect(counts[table], table).toBeGreaterThanOrEqual(before[table] as number);
      expect(counts[table], table).toBeLessThanOrEqual(final[table] as number);
    }
    expect(counts.im_messages).toBeGreaterThan(before.im_messages as number);

    const restored = await startParley(envOf(target));
    try {
      await expectSameInstallation(restored.url, fixture, receiver);
    } finally {
      await restored.stop();
    }
  }, 120_000);
});
