/**
 * Fills the exception store directly through the real repository: tests of its listing and of
 * re-sends need many records without sending that many failing messages first.
 */
import type { CallbacksRepository, NewStoredRecord } from '../../src/modules/callbacks/ports.js';
import { recordsOf } from '../../src/modules/callbacks/record.js';

export interface StoreTarget {
  appId: string;
  /** `org#app` */
  appkey: string;
  ruleId: number | null;
  ruleName: string;
  dateKey: string;
}

let serial = 0;

/** `count` records under the target's key, callIds `{appkey}_{tag}-{i}`; returns their callIds in storage order. */
export async function storeRecords(repo: CallbacksRepository, target: StoreTarget, count: number, now: number, tag = 'r'): Promise<string[]> {
  const rows: NewStoredRecord[] = Array.from({ length: count }, (_, i) => {
    const [record] = recordsOf(
      {
        appId: target.appId,
        appkey: target.appkey,
        msgId: String(1_000_000 + serial++),
        from: 'alice',
        to: 'bob',
        chatType: 'chat',
        timestamp: now,
        payload: { bodies: [{ type: 'txt', msg: `${tag}${i}` }], ext: {} },
        source: 'rest',
        offlineReceivers: [],
      },
      () => `${tag}-${i}`,
    );
    return { appId: target.appId, dateKey: target.dateKey, ruleId: target.ruleId, ruleName: target.ruleName, lastError: 'HTTP 500', record: record!, eventType: 'chat', msgId: record!.msg_id };
  });
  // In slices, as a real store does (one failed record at a time or a few together).
  for (let i = 0; i < rows.length; i += 500) await repo.storeRecords(rows.slice(i, i + 500), now);
  return rows.map((r) => r.record.callId);
}
