/**
 * The callbacks side of the IM post-send seam: inside the fan-out transaction, turn the accepted
 * messages into one durable delivery job per (record, matching rule). Nothing is sent here.
 */
import type { Kysely } from 'kysely';
import { uuid } from '../../kernel/ids.js';
import type { Database } from '../../storage/schema.js';
import type { MessageEvent, PostSendHook } from '../im/post-send.js';
import type { JobQueue, NewJob } from '../jobs/ports.js';
import { ruleQueue, type CallbackDelivery, type DeliverPayload } from './delivery.js';
import type { AppEntry, RuleDirectory } from './directory.js';
import { routeRecords } from './record.js';

export class CallbacksPostSendHook implements PostSendHook {
  constructor(
    private readonly directory: RuleDirectory,
    private readonly jobs: JobQueue,
    private readonly delivery: CallbackDelivery,
  ) {}

  async onMessages(db: Kysely<Database>, events: readonly MessageEvent[]): Promise<{ notify: string[] }> {
    const jobs: NewJob[] = [];
    const ruleIds = new Set<number>();
    // Each app's settings and rules once per batch (one version check, not one per message).
    const apps = new Map<string, Promise<AppEntry>>();
    for (const event of events) {
      // Reads go through `db`: on SQLite the fan-out transaction holds the only connection.
      let app = apps.get(event.appId);
      if (!app) apps.set(event.appId, (app = this.directory.app(event.appId, db)));
      const { settings, rules } = await app;
      if (!settings.enabled || rules.length === 0) continue;
      for (const { rule, record } of routeRecords(event, rules, uuid)) {
        jobs.push({ queue: ruleQueue(rule.id), payload: { ruleId: rule.id, record } satisfies DeliverPayload });
        ruleIds.add(rule.id);
      }
    }
    if (jobs.length === 0) return { notify: [] };
    // One statement for the whole fan-out batch, in its order (so callbacks keep message order).
    await this.jobs.enqueue(db, jobs);
    for (const id of ruleIds) this.delivery.ensureWorker(id);
    return { notify: [...ruleIds].map(ruleQueue) };
  }
}
