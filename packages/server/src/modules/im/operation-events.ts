/**
 * The seam between IM operations other than messages (contacts, logins and logouts, recalls,
 * read receipts, group and chat-room operations) and what happens after them: the callbacks module's event catalogue
 * (contract 6.7b), as post-send.ts is for messages.
 *
 * `OperationEvents` writes the durable work an operation calls for (callback jobs) with the
 * operation: the hook decides the jobs before the operation's transaction (reading what it needs,
 * writing nothing), the operation's transaction writes them beside its own rows when it did
 * something, and after the commit the hook wakes what runs them. So an operation is never
 * committed without its callbacks, nor called back without being committed. An operation that
 * writes nothing itself (a login, a one-to-one read receipt) has its jobs written in a transaction
 * of their own.
 */
import type { RosterOperation } from '@parley/protocol';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { GroupOperationEvent } from './group-events.js';
import type { NewJob } from '../jobs/ports.js';
import type { ImTransaction } from './ports.js';
import type { MessageChatType } from './post-send.js';

interface EventBase {
  appId: string;
  /** `org#app` */
  appkey: string;
  /** Unix ms of the operation. */
  timestamp: number;
}

/** A contact operation; `from` and `to` as in the record (see docs/callbacks.md). */
export interface RosterEvent extends EventBase {
  kind: 'roster';
  operation: RosterOperation;
  from: string;
  to: string;
  /** Id of the operation (the two events of one answer share it). */
  msgId: string;
  reason?: string;
}

export interface UserStatusEvent extends EventBase {
  kind: 'userStatus';
  username: string;
  status: 'online' | 'offline';
  reason: 'login' | 'logout' | 'replaced';
  /** ios, android, linux, osx, win or other. */
  os: string;
  ip: string;
  /** The connection's resource (device). */
  resource: string;
  /** The SDK's version, when it gave one. */
  version: string;
}

export interface RecallEvent extends EventBase {
  kind: 'recall';
  /** Id of the recall. */
  msgId: string;
  recalled: { msgId: string; from: string; to: string; chatType: MessageChatType };
}

export interface ReadAckEvent extends EventBase {
  kind: 'read_ack';
  chatType: 'chat' | 'groupchat';
  /** Who read. */
  from: string;
  /** The sender of the message read, or the group id. */
  to: string;
  /** Id of the receipt. */
  msgId: string;
  ackMessageId: string;
}

/** A group or chat-room operation (group-events.ts), as the callbacks module's `group_op_event` records tell it. */
export interface GroupOpEvent extends EventBase {
  kind: 'group_op_event';
  operation: GroupOperationEvent;
}

export type ImOperationEvent = RosterEvent | UserStatusEvent | RecallEvent | ReadAckEvent | GroupOpEvent;

export interface OperationHook {
  /** The jobs the events call for, in order. Writes nothing. */
  jobsFor(events: readonly ImOperationEvent[]): Promise<NewJob[]>;
  /** The jobs an operation's transaction wrote have committed: wake (and start) what runs them. */
  committed(jobs: readonly NewJob[]): void;
}

/** Used when no callbacks are installed. */
export const noOperationHook: OperationHook = { jobsFor: async () => [], committed: () => undefined };

export class OperationEvents {
  constructor(
    private readonly hook: OperationHook,
    private readonly uow: UnitOfWork<ImTransaction>,
  ) {}

  /**
   * Runs `work` in one transaction and writes the jobs of `events` in it when `done(result)` says
   * the operation did something (default: always); answers `work`'s result.
   */
  async write<T>(events: readonly ImOperationEvent[], work: (tx: ImTransaction) => Promise<T>, done: (result: T) => boolean = () => true): Promise<T> {
    const jobs = events.length > 0 ? await this.hook.jobsFor(events) : [];
    let written = false;
    const result = await this.uow.run(async (tx) => {
      const value = await work(tx);
      written = jobs.length > 0 && done(value);
      if (written) await tx.jobs.enqueue(jobs);
      return value;
    });
    if (written) this.hook.committed(jobs);
    return result;
  }

  /** The jobs of an operation that writes nothing itself, in a transaction of their own (none when no rule wants them). */
  async emit(events: readonly ImOperationEvent[]): Promise<void> {
    const jobs = await this.hook.jobsFor(events);
    if (jobs.length === 0) return;
    await this.uow.run((tx) => tx.jobs.enqueue(jobs));
    this.hook.committed(jobs);
  }
}
