/**
 * The life of one msync connection, as a pure state machine:
 *
 *   awaiting-provision --PROVISION--> provisioning --accepted--> live --LOGOUT / close--> closed
 *            |                             |--refused--> closed
 *            '--any other frame, or a frame that does not decode--> closed
 *
 * `live` takes UNREAD (also the heartbeat), SYNC (sends, pulls, chat-room join and leave) and
 * LOGOUT. A second PROVISION, a NOTICE from the client or an unknown command closes the
 * connection, as does a frame that does not decode. Frames arriving while the provision is being
 * checked wait for its outcome (the gateway handles frames of a connection in order).
 */
import { Command } from './schema.js';

export type SessionState = 'awaiting-provision' | 'provisioning' | 'live' | 'closed';

/** WebSocket close codes the gateway uses. */
export const CLOSE = {
  /** Logged out. */
  normal: 1000,
  /** A frame that does not decode. */
  badFrame: 1007,
  /** A first frame that is not a provision, or a command the gateway does not take. */
  protocol: 1008,
  /** A frame over the size bound (closed by the WebSocket layer itself). */
  tooLarge: 1009,
  /** The provision was refused (bad or expired token, unknown app or user). */
  refused: 4401,
  /** The server failed handling a frame. */
  internal: 1011,
  /** No frame within the idle timeout. */
  idle: 4408,
} as const;

export type Step =
  | { kind: 'provision' }
  | { kind: 'unread' }
  | { kind: 'sync' }
  | { kind: 'logout' }
  | { kind: 'ignore' }
  | { kind: 'close'; code: number; reason: string };

const COMMANDS: Record<number, string> = { 0: 'SYNC', 1: 'UNREAD', 2: 'NOTICE', 3: 'PROVISION', 4: 'LOGOUT' };

/** What to do with a decoded frame of `command` in `state`, and the state after it. */
export function onFrame(state: SessionState, command: number): { state: SessionState; step: Step } {
  if (state === 'closed') return { state, step: { kind: 'ignore' } };
  if (state === 'awaiting-provision') {
    if (command === Command.PROVISION) return { state: 'provisioning', step: { kind: 'provision' } };
    return { state: 'closed', step: { kind: 'close', code: CLOSE.protocol, reason: 'the first frame must be a PROVISION' } };
  }
  switch (command) {
    case Command.UNREAD:
      return { state, step: { kind: 'unread' } };
    case Command.SYNC:
      return { state, step: { kind: 'sync' } };
    case Command.LOGOUT:
      return { state: 'closed', step: { kind: 'logout' } };
    default: {
      const name = COMMANDS[command];
      const reason = name ? `command ${name} is not accepted here` : `unknown command ${command}`;
      return { state: 'closed', step: { kind: 'close', code: CLOSE.protocol, reason } };
    }
  }
}

/** A frame that did not decode: the connection closes, whatever the state. */
export function onUndecodable(state: SessionState, detail: string): { state: SessionState; step: Step } {
  if (state === 'closed') return { state, step: { kind: 'ignore' } };
  return { state: 'closed', step: { kind: 'close', code: CLOSE.badFrame, reason: detail.slice(0, 100) } };
}

/** The provision check ended. */
export function onProvisioned(state: SessionState, accepted: boolean): SessionState {
  if (state !== 'provisioning') return state;
  return accepted ? 'live' : 'closed';
}

/** The socket closed, or the server closes it (idle, slow consumer, replaced). */
export const onClosed = (): SessionState => 'closed';
