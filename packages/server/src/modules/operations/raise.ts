/**
 * Raising an operator event: its row and the job that sends it are written in one transaction,
 * the cause's own where the cause is a write (a delivery marked failed, a store key marked
 * noticed), so the event exists exactly when its cause does. The send runs later, on whichever
 * instance claims the job: never on the path that caused it, once per event across instances.
 */
import type { Clock } from '../../kernel/clock.js';
import { uuid } from '../../kernel/ids.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { JobQueue } from '../jobs/ports.js';
import type { OperationsTransaction, OperatorEventInput, OperatorOwner } from './ports.js';

export const OPERATOR_SEND_QUEUE = 'operations.send';

export interface OperatorSendJob {
  eventId: string;
}

/** Writes one event (and its send job) into the transaction it was given; false when its dedupe key was taken. */
export type RaiseEvent = (owner: OperatorOwner, event: OperatorEventInput) => Promise<boolean>;

/** What the modules that cause events see, over their own transaction type `Tx`. */
export interface OperatorAlerts<Tx> {
  /** Runs `work` in one transaction with a `raise` writing events into it; wakes the sender after the commit. */
  within<T>(work: (tx: Tx, raise: RaiseEvent) => Promise<T>): Promise<T>;
  /** An event no write causes: written in a transaction of its own, off the caller's path; a failure is logged. */
  raise(owner: OperatorOwner, event: OperatorEventInput): void;
}

export class OperatorEvents<Tx extends OperationsTransaction> implements OperatorAlerts<Tx> {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly uow: UnitOfWork<Tx>,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly onError: (error: unknown, event: OperatorEventInput) => void,
  ) {}

  async within<T>(work: (tx: Tx, raise: RaiseEvent) => Promise<T>): Promise<T> {
    let raised = false;
    const result = await this.uow.run((tx) =>
      work(tx, async (owner, event) => {
        const written = await raiseIn(tx, owner, event, this.clock.now());
        raised ||= written;
        return written;
      }),
    );
    if (raised) this.jobs.notify(OPERATOR_SEND_QUEUE);
    return result;
  }

  raise(owner: OperatorOwner, event: OperatorEventInput): void {
    const run = this.within((_tx, raise) => raise(owner, event))
      .catch((error: unknown) => this.onError(error, event))
      .finally(() => this.pending.delete(run));
    this.pending.add(run);
  }

  /** Resolves when every event raised with `raise` is written (tests; shutdown). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}

async function raiseIn(tx: OperationsTransaction, owner: OperatorOwner, event: OperatorEventInput, now: number): Promise<boolean> {
  const id = uuid();
  const written = await tx.operations.insertEvent({ id, owner, type: event.type, data: { ...event.data }, at: now, dedupeKey: event.dedupeKey ?? id });
  if (written) await tx.jobs.enqueue({ queue: OPERATOR_SEND_QUEUE, payload: { eventId: id } satisfies OperatorSendJob });
  return written;
}
