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

/** The queue a contact event is pulled from: the other user's. */
export const rosterQueue = (appKey: string, frame: ImRosterFrame): Jid => userJid(appKey, frame.from);

/**
 * The meta of a contact event. `id` comes from the generator of message ids: it shares the other
 * user's queue with their one-to-one messages, and a meta id seen twice in one queue is one meta.
 */
export function rosterMeta(appKey: string, frame: ImRosterFrame, id: string): MetaOut {
  const from = userJid(appKey, frame.from);
  const to = userJid(appKey, frame.to);
  const payload = encodeRosterBody({ operation: OPERATIONS[frame.event], from, to: [to], reason: frame.reason ?? '' });
  return { id, from, to, timestamp: frame.timestamp, ns: Namespace.ROSTER, payload };
}
