/**
 * The callbacks side of the IM seams: before the fan-out's transaction, turn the messages into one
 * durable delivery job per (record, matching rule) (post-send.ts); before an operation's
 * transaction, the same for the event catalogue (operation-events.ts, catalogue.ts); after the
 * commit, start the rules' workers and wake them. Nothing is sent here, and nothing is written:
 * the fan-out or the operation writes the jobs, and they are delivered as message records are.
 */
import { uuid } from '../../kernel/ids.js';
import type { ImOperationEvent, OperationHook } from '../im/operation-events.js';
import type { MessageEvent, PostSendHook } from '../im/post-send.js';
import type { JobQueue, NewJob } from '../jobs/ports.js';
import { routeOperation } from './catalogue.js';
import { ruleQueue, type CallbackDelivery, type DeliverPayload } from './delivery.js';
import type { AppEntry, RuleDirectory } from './directory.js';
import { routeRecords } from './record.js';

export class CallbacksPostSendHook implements PostSendHook {
  constructor(
    private readonly directory: RuleDirectory,
    private readonly jobs: Pick<JobQueue, 'notify'>,
    private readonly delivery: CallbackDelivery,
  ) {}

  async jobsFor(events: readonly MessageEvent[]): Promise<NewJob[][]> {
    // Each app's settings and rules once per batch (one version check, not one per message).
    const apps = new Map<string, Promise<AppEntry>>();
    const out: NewJob[][] = [];
    for (const event of events) {
      let app = apps.get(event.appId);
      if (!app) apps.set(event.appId, (app = this.directory.app(event.appId)));
      const { settings, rules } = await app;
      if (!settings.enabled || rules.length === 0) {
        out.push([]);
        continue;
      }
      out.push(routeRecords(event, rules, uuid).map(({ rule, record }) => ({ queue: ruleQueue(rule.id), payload: { ruleId: rule.id, record } satisfies DeliverPayload })));
    }
    return out;
  }

  committed(jobs: readonly NewJob[]): void {
    wake(jobs, this.delivery, this.jobs);
  }
}

export class CallbacksOperationHook implements OperationHook {
  constructor(
    private readonly directory: RuleDirectory,
    private readonly jobs: Pick<JobQueue, 'notify'>,
    private readonly delivery: CallbackDelivery,
  ) {}

  async jobsFor(events: readonly ImOperationEvent[]): Promise<NewJob[]> {
    const out: NewJob[] = [];
    for (const event of events) {
      const { settings, rules } = await this.directory.app(event.appId);
      if (!settings.enabled || rules.length === 0) continue;
      for (const { rule, record } of routeOperation(event, rules, uuid)) out.push({ queue: ruleQueue(rule.id), payload: { ruleId: rule.id, record } satisfies DeliverPayload });
    }
    return out;
  }

  committed(jobs: readonly NewJob[]): void {
    wake(jobs, this.delivery, this.jobs);
  }
}

/** Starts (once) and wakes the workers of the rules the committed jobs are for. */
function wake(jobs: readonly NewJob[], delivery: CallbackDelivery, queue: Pick<JobQueue, 'notify'>): void {
  const ruleIds = new Set<number>();
  for (const job of jobs) ruleIds.add((job.payload as DeliverPayload).ruleId);
  for (const id of ruleIds) {
    delivery.ensureWorker(id);
    queue.notify(ruleQueue(id));
  }
}
