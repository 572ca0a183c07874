/**
 * Numbered rule slots per app (1…max, UNIQUE (app_id, slot)), shared by post-send and pre-send
 * rules: a new rule takes the lowest free slot; a concurrent create that took the same slot makes
 * the insert fail on the unique index, and the slots are read again.
 */
import { isUniqueViolation } from '../errors.js';

export type SlotClaim<R> = { ok: true; rule: R } | { ok: false; reason: 'duplicate_name' | 'limit_reached' };

export async function claimRuleSlot<R>(
  max: number,
  name: string,
  taken: () => Promise<Array<{ slot: number; name: string }>>,
  insert: (slot: number) => Promise<R>,
): Promise<SlotClaim<R>> {
  for (let round = 0; round <= max * 2; round++) {
    const rows = await taken();
    if (rows.some((r) => r.name === name)) return { ok: false, reason: 'duplicate_name' };
    const used = new Set(rows.map((r) => r.slot));
    const slot = Array.from({ length: max }, (_, i) => i + 1).find((s) => !used.has(s));
    if (slot === undefined) return { ok: false, reason: 'limit_reached' };
    try {
      return { ok: true, rule: await insert(slot) };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return { ok: false, reason: 'limit_reached' };
}
