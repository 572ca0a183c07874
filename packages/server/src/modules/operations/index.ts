/**
 * Operator events (contract 6.7) assembled: the raiser the causing modules get (callbacks: bans
 * and the exception store's expiry; channel: reply pushes out of retries), the sender on the
 * `operations.send` queue, the endpoints' service and the retention sweep of recorded events.
 */
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { JobQueue } from '../jobs/ports.js';
import type { OutboundSender } from '../outbound/ports.js';
import type { OperationsRepository, OperationsTransaction } from './ports.js';
import { OPERATOR_SEND_QUEUE, OperatorEvents, type OperatorSendJob } from './raise.js';
import { OPERATOR_SEND_TIMEOUT_MS, OperatorEventSender } from './send.js';
import { OperationsService } from './service.js';

/** Recorded events (the console's notices) are kept this long. */
export const OPERATOR_EVENTS_RETENTION_MS = 30 * 24 * 3_600_000;

export interface OperationsDeps<Tx extends OperationsTransaction> {
  repo: OperationsRepository;
  uow: UnitOfWork<Tx>;
  jobs: JobQueue;
  outbound: OutboundSender;
  clock: Clock;
  logger: { error(obj: object, msg: string): void };
}

export interface OperationsModule<Tx extends OperationsTransaction> {
  events: OperatorEvents<Tx>;
  service: OperationsService;
  sender: OperatorEventSender;
  /** Deletes events older than the retention; answers how many. */
  sweep(): Promise<number>;
  /** Resolves when every raised event is written. */
  flush(): Promise<void>;
}

export function createOperations<Tx extends OperationsTransaction>(deps: OperationsDeps<Tx>): OperationsModule<Tx> {
  const { repo, clock } = deps;
  const events = new OperatorEvents<Tx>(deps.uow, deps.jobs, clock, (error, event) => deps.logger.error({ err: error, type: event.type }, 'operator event could not be recorded'));
  const sender = new OperatorEventSender(repo, deps.outbound, clock);
  deps.jobs.work<OperatorSendJob>(OPERATOR_SEND_QUEUE, sender.handle, { concurrency: 4, leaseMs: OPERATOR_SEND_TIMEOUT_MS + 20_000 });
  return {
    events,
    service: new OperationsService(repo, deps.outbound, clock),
    sender,
    sweep: () => repo.deleteEventsUpTo(clock.now() - OPERATOR_EVENTS_RETENTION_MS),
    flush: () => events.flush(),
  };
}
