/**
 * The rule directory's cache on the real repository (both engines): concurrent misses share one
 * read, a read inside a transaction never waits for a shared read started outside it, and with
 * settings versions on a real Redis a change made through one instance's directory is used by
 * another's at its next use, however long its copies would otherwise live.
 */
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RuleDirectory } from '../../src/modules/callbacks/directory.js';
import { RedisSettingsVersions } from '../../src/modules/coordination/settings-versions.js';
import type { CallbacksRepository } from '../../src/modules/callbacks/ports.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';

const APP = 'app-dir-1';

/** The real repository, counting the reads the directory makes. */
function counting(repo: CallbacksRepository) {
  const reads = { rule: 0, settings: 0, rules: 0 };
  const wrapped: CallbacksRepository = Object.create(repo) as CallbacksRepository;
  wrapped.getRuleById = (id) => (reads.rule++, repo.getRuleById(id));
  wrapped.getSettings = (appId) => (reads.settings++, repo.getSettings(appId));
  wrapped.listRules = (appId) => (reads.rules++, repo.listRules(appId));
  return { wrapped, reads };
}

describe.each(ENGINES)('callback rule directory on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;

  beforeEach(async () => {
    clock = new FakeClock();
    t = await createTestApp(engine, { clock });
    await t.app.parley.callbacks.service.updateSettings(APP, { enabled: true, store_failed: false });
  });
  afterEach(async () => {
    await t.close();
  });

  /** A rule 'main' of APP, and a directory over the repository that counts its reads. */
  async function ruleWithCountingDirectory() {
    await t.app.parley.callbacks.service.createRule(APP, { name: 'main', url: 'http://127.0.0.1:9/cb' });
    const [created] = await t.app.parley.callbacks.repo.listRules(APP);
    if (!created) throw new Error('the rule was not created');
    const { wrapped, reads } = counting(t.app.parley.callbacks.repo);
    return { created, reads, directory: new RuleDirectory(wrapped, clock, 2_000) };
  }

  it('reads a rule once for all the deliveries that miss it together, and again after the TTL', async () => {
    const { created, reads, directory } = await ruleWithCountingDirectory();

    const rules = await Promise.all(Array.from({ length: 128 }, () => directory.rule(created.id)));
    expect(new Set(rules.map((r) => r?.name))).toEqual(new Set(['main']));
    expect(reads.rule).toBe(1);

    clock.advance(2_000);
    await Promise.all(Array.from({ length: 128 }, () => directory.rule(created.id)));
    expect(reads.rule).toBe(2);

    const apps = await Promise.all(Array.from({ length: 32 }, () => directory.app(APP)));
    expect(apps.every((a) => a.settings.enabled && a.rules.length === 1)).toBe(true);
    expect([reads.settings, reads.rules]).toEqual([1, 1]);
  });

  it('answers from the cache without a read only while it holds the rule and its app fresh', async () => {
    const { created, reads, directory } = await ruleWithCountingDirectory();

    expect(directory.cached(created.id)).toBeUndefined();
    await directory.rule(created.id);
    // The rule alone is not enough: the delivery needs the app's settings too.
    expect(directory.cached(created.id)).toBeUndefined();
    await directory.app(APP);
    const hit = directory.cached(created.id);
    expect(hit?.rule?.name).toBe('main');
    expect(hit?.app?.settings.enabled).toBe(true);
    expect([reads.rule, reads.settings, reads.rules]).toEqual([1, 1, 1]);

    clock.advance(2_000);
    expect(directory.cached(created.id)).toBeUndefined();
    await directory.rule(created.id);
    await directory.app(APP);
    expect(directory.cached(created.id)?.rule?.name).toBe('main');
    await directory.changed(APP, created.id);
    expect(directory.cached(created.id)).toBeUndefined();

    // A deleted rule is cached as gone: the answer says so without the app.
    await t.app.parley.callbacks.repo.deleteRule(APP, 'main');
    await directory.rule(created.id);
    expect(directory.cached(created.id)).toEqual({ rule: undefined, app: undefined });
  });

  it('with Redis settings versions, uses another instance’s change at once, on the delivery path too', async () => {
    const { created } = await ruleWithCountingDirectory();
    const redis = new Redis(process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
    const prefix = `parley-test-dir-${process.pid}-${Date.now()}:`;
    const one = new RedisSettingsVersions(redis, { prefix });
    const two = new RedisSettingsVersions(redis, { prefix });
    try {
      await new Promise((resolve) => (redis.status === 'ready' ? resolve(undefined) : redis.once('ready', resolve)));
      const repo = t.app.parley.callbacks.repo;
      // Copies kept for an hour: only the versions can make `reader` see the change.
      const writer = new RuleDirectory(repo, clock, 3_600_000, one);
      const reader = new RuleDirectory(repo, clock, 3_600_000, two);
      // The delivery path: check (which learns the rule's app on first use), then the cache without awaiting.
      await reader.check(created.id);
      await reader.rule(created.id);
      await reader.app(APP);
      expect(reader.cached(created.id)?.rule?.url).toBe('http://127.0.0.1:9/cb');

      await repo.updateRule(APP, 'main', { url: 'http://127.0.0.1:9/moved' }, clock.now());
      await writer.changed(APP, created.id);
      await reader.check(created.id);
      expect(reader.cached(created.id)).toBeUndefined();
      expect((await reader.rule(created.id))?.url).toBe('http://127.0.0.1:9/moved');

      await repo.putSettings(APP, { enabled: false }, clock.now());
      await writer.changed(APP);
      expect((await reader.app(APP)).settings.enabled).toBe(false);
    } finally {
      one.close();
      two.close();
      redis.disconnect();
    }
  });
});
