/**
 * Domain types and the storage port of operator events (contract 6.7): the operations webhook of
 * an IM app or a tenant, and the events recorded for it (the outbox the sender works from, and
 * the console's notices).
 */
import type { DeliveryExhaustedData, OperatorEventStatus, OperatorEventType, RuleBannedData, RuleUnbannedData, StoreExpiringData } from '@parley/protocol';
import type { TransactionJobs } from '../jobs/ports.js';

/** Whose webhook: an IM app (its UUID) or a customer-service tenant (its id, as text). */
export interface OperatorOwner {
  scope: 'app' | 'tenant';
  id: string;
}

export interface OperationsWebhook {
  owner: OperatorOwner;
  url: string;
  /** The signing key (sealed at rest by the repository). */
  secret: string;
  createdAt: number;
  updatedAt: number;
}

/** The `data` of each event type. */
export interface OperatorEventData {
  'rule.banned': RuleBannedData;
  'rule.unbanned': RuleUnbannedData;
  'delivery.exhausted': DeliveryExhaustedData;
  'store.expiring': StoreExpiringData;
}

/** An event as its cause raises it. */
export type OperatorEventInput = {
  [K in OperatorEventType]: {
    type: K;
    data: OperatorEventData[K];
    /** Events with the same key (per owner) are recorded once; default: none (every raise is new). */
    dedupeKey?: string;
  };
}[OperatorEventType];

export interface NewOperatorEvent {
  /** The webhook-id it is sent with. */
  id: string;
  owner: OperatorOwner;
  type: OperatorEventType;
  data: Record<string, unknown>;
  /** ms: the event's `timestamp`. */
  at: number;
  dedupeKey: string;
}

export interface StoredOperatorEvent extends NewOperatorEvent {
  status: OperatorEventStatus;
  /** Send attempts made. */
  attempts: number;
  lastError: string | null;
  updatedAt: number;
}

export interface SendNote {
  status: OperatorEventStatus;
  attempts: number;
  lastError: string | null;
  at: number;
}

/** The writes of a transaction that raises an event. */
export interface OperatorEventWrites {
  /** Records the event; false (nothing written) when the owner already has one with its dedupe key. */
  insertEvent(event: NewOperatorEvent): Promise<boolean>;
}

/** What a transaction raising operator events holds: the event rows and the jobs that send them. */
export interface OperationsTransaction {
  readonly operations: OperatorEventWrites;
  readonly jobs: TransactionJobs;
}

export interface OperationsRepository {
  webhook(owner: OperatorOwner): Promise<OperationsWebhook | undefined>;
  /** Creates or replaces the owner's webhook. */
  putWebhook(owner: OperatorOwner, url: string, secret: string, now: number): Promise<OperationsWebhook>;
  /** Removes it; answers it as it was (undefined: there was none). */
  deleteWebhook(owner: OperatorOwner): Promise<OperationsWebhook | undefined>;
  event(id: string): Promise<StoredOperatorEvent | undefined>;
  /** How the latest send attempt went. */
  noteSend(id: string, note: SendNote): Promise<void>;
  /** The owner's latest events, newest first. */
  recentEvents(owner: OperatorOwner, limit: number): Promise<StoredOperatorEvent[]>;
  /** Deletes events recorded at or before `cutoff`; answers how many. */
  deleteEventsUpTo(cutoff: number): Promise<number>;
}
