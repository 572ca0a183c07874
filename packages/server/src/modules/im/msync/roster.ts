/**
 * Contact events as the SDK reads them: a meta of namespace ROSTER whose payload is a
 * RosterBody{operation, from, to[], reason}; the SDK turns the operation into `onContactInvited`,
 * `onContactAgreed`, `onContactRefuse`, `onContactAdded` or `onContactDeleted`. The meta sits in
 * the queue of the other user. Pure.
 */
import type { ImRosterFrame } from '@parley/protocol';
import { encodeRosterBody, type Jid, type MetaOut } from './codec.js';
import { userJid } from './contents.js';
import { Namespace, RosterOperation } from './schema.js';

const OPERATIONS: Record<ImRosterFrame['event'], number> = {
  invited: RosterOperation.ADD,
  agreed: RosterOperation.REMOTE_ACCEPT,
  refused: RosterOperation.DECLINE,
  added: RosterOperation.ACCEPT,
  deleted: RosterOperation.REMOVE,
};

let sequence = 0;

/** The queue a contact event is pulled from: the other user's. */
export const rosterQueue = (appKey: string, frame: ImRosterFrame): Jid => userJid(appKey, frame.from);

/** The meta of a contact event; its id is unique in this process (time × 4096 + a sequence), as msg ids are. */
export function rosterMeta(appKey: string, frame: ImRosterFrame): MetaOut {
  sequence = (sequence + 1) % 4096;
  const from = userJid(appKey, frame.from);
  const to = userJid(appKey, frame.to);
  const payload = encodeRosterBody({ operation: OPERATIONS[frame.event], from, to: [to], reason: frame.reason ?? '' });
  return { id: (BigInt(frame.timestamp) * 4096n + BigInt(sequence)).toString(), from, to, timestamp: frame.timestamp, ns: Namespace.ROSTER, payload };
}
