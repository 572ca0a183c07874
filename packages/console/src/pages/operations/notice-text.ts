/** How a notice reads: its title, its reason, and how sending it to the webhook went. */
import type { OperatorEventView } from '@parley/protocol';
import { formatTime } from '../../format.js';

interface NoticeText {
  title: string;
  reason: string;
  tone: 'error' | 'success' | 'warning';
  /** The delivery a notice is about, shown shortened with a copy button. */
  deliveryId?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : String(v ?? ''));
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** "HTTP 500 (3×), timeout: …": the errors in order of first appearance, repeats counted. */
function errorSummary(errors: unknown): string {
  const list = Array.isArray(errors) ? errors.map((e) => str((e as { error?: unknown }).error)) : [];
  if (list.length === 0) return 'no errors recorded on this instance';
  const counts = new Map<string, number>();
  for (const e of list) counts.set(e, (counts.get(e) ?? 0) + 1);
  return [...counts].map(([e, n]) => (n > 1 ? `${e} (${n}×)` : e)).join(', ');
}

export function describeEvent(event: OperatorEventView): NoticeText {
  const d = event.data;
  switch (event.type) {
    case 'rule.banned': {
      const why = d.reason === 'overlong' ? '90 answers over 1,000 characters within 30 s' : '90 failed attempts within 30 s';
      return {
        title: `Rule ${str(d.rule)} banned until ${formatTime(num(d.banned_until))} (ban ${num(d.ban_count)})`,
        reason: `Reason: ${why}. Last errors: ${errorSummary(d.last_errors)}.`,
        tone: 'error',
      };
    }
    case 'rule.unbanned':
      return { title: `Rule ${str(d.rule)} is delivering again`, reason: `Its ban ${num(d.ban_count)} ended.`, tone: 'success' };
    case 'delivery.exhausted':
      return {
        title: `A push of association ${num(d.channel_id)} failed for good`,
        reason: `Reason: all 10 attempts failed, the last with ${str(d.last_error)}. Re-deliver it from the association's delivery log.`,
        tone: 'error',
        deliveryId: str(d.delivery_id),
      };
    case 'store.expiring':
      return {
        title: `Exception-store key ${str(d.date)} expires soon`,
        reason: `Reason: its ${num(d.size)} records are deleted from ${formatTime(num(d.expires_at))}; re-send or copy them before then.`,
        tone: 'warning',
      };
  }
}

export function deliveryText(delivery: OperatorEventView['delivery']): { text: string; failed: boolean } {
  switch (delivery.status) {
    case 'sent':
      return { text: 'Sent to the webhook', failed: false };
    case 'no_webhook':
      return { text: 'Not sent: no webhook was set', failed: false };
    case 'failed':
      return { text: `Webhook failed after ${delivery.attempts} attempts: ${delivery.last_error ?? ''}`, failed: true };
    case 'pending':
      return delivery.attempts === 0 ? { text: 'Sending…', failed: false } : { text: `Retrying (attempt ${delivery.attempts} failed: ${delivery.last_error ?? ''})`, failed: true };
  }
}
