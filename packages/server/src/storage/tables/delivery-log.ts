import type { Generated } from 'kysely';

/** The durable delivery log of post-send callback attempts (modules/callbacks/delivery-log.ts). */
export interface CallbackDeliveriesTable {
  id: Generated<number>;
  app_id: string;
  rule_id: number;
  rule_name: string;
  call_id: string;
  msg_id: string;
  event_type: string;
  from_user: string;
  to_user: string;
  status: 'success' | 'overlong' | 'failure';
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  /** 0/1 */
  resend: number;
  at: number;
}

export interface DeliveryLogTables {
  callback_deliveries: CallbackDeliveriesTable;
}
