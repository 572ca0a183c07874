/** Operator events (modules/operations): the operations webhooks and the events recorded for them. */
export interface OperationsWebhooksTable {
  /** `app` (owner_id: the IM app's UUID) or `tenant` (owner_id: the tenant id as text). */
  scope: 'app' | 'tenant';
  owner_id: string;
  url: string;
  /** Sealed (kernel/secret-box.ts). */
  secret: string;
  created_at: number;
  updated_at: number;
}

export interface OperatorEventsTable {
  /** UUID, the webhook-id. */
  id: string;
  scope: 'app' | 'tenant';
  owner_id: string;
  type: string;
  /** JSON of the event's `data`. */
  data: string;
  /** Unique per owner: an event with a taken key is not recorded again. */
  dedupe_key: string;
  at: number;
  status: 'pending' | 'sent' | 'failed' | 'no_webhook';
  attempts: number;
  last_error: string | null;
  updated_at: number;
}

export interface OperationsTables {
  operations_webhooks: OperationsWebhooksTable;
  operator_events: OperatorEventsTable;
}
