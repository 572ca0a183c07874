/**
 * The callbacks side of the IM post-send seam: inside the fan-out transaction, turn one accepted
 * message into one durable delivery job per (record, matching rule). Nothing is sent here.
 */
import type { Kysely } from 'kysely';
import { uuid } from '../../kernel/ids.js';
import type { Database } from '../../storage/schema.js';
import type { MessageEvent, PostSendHook } from '../im/post-send.js';
import type { JobQueue } from '../jobs/ports.js';
import { ruleQueue, type CallbackDelivery, type DeliverPayload } from './delivery.js';
import type { RuleDirectory } from './directory.js';
import { routeRecords } from './record.js';

export class CallbacksPostSendHook implements PostSendHook {
  constructor(
    private readonly directory: RuleDirectory,
    private readonly jobs: JobQueue,
    private readonly delivery: CallbackDelivery,
  ) {}

  async onMessage(db: Kysely<Database>, event: MessageEvent): Promise<{ notify: string[] }> {
    // Reads go through `db`: on SQLite the fan-out transaction holds the only connection.
    const { settings, rules } = await this.directory.app(event.appId, db);
    if (!settings.enabled || rules.length === 0) return { notify: [] };
    const routed = routeRecords(event, rules, uuid);
    if (routed.length === 0) return { notify: [] };
    await this.jobs.enqueue(
      db,
      routed.map(({ rule, record }) => ({ queue: ruleQueue(rule.id), payload: { ruleId: rule.id, record } satisfies DeliverPayload })),
    );
    const queues = [...new Set(routed.map(({ rule }) => rule.id))];
    for (const id of queues) this.delivery.ensureWorker(id);
    return { notify: queues.map(ruleQueue) };
  }
}
