/** Several instances booting at once on an empty PostgreSQL database migrate it once, without errors. */
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/index.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES, createTestDatabase } from '../helpers/engines.js';

describe.runIf(ENGINES.includes('postgres'))('concurrent first boot on PostgreSQL', () => {
  it('applies the migrations once when four instances open the same empty database together', async () => {
    const db = await createTestDatabase('postgres');
    try {
      const opened = await Promise.all(Array.from({ length: 4 }, () => openStorage(db.config, new FakeClock())));
      const versions = await opened[0]!.db.selectFrom('parley_migrations').select('version').execute();
      expect(new Set(versions.map((v) => v.version)).size).toBe(versions.length);
      expect(opened.every((s) => s.schemaVersion === opened[0]!.schemaVersion)).toBe(true);
      await Promise.all(opened.map((s) => s.close()));
    } finally {
      await db.destroy();
    }
  });
});
