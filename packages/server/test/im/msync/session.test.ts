/**
 * The msync session state machine, pure: awaiting-provision -> provisioning -> live -> closed,
 * and a close with a clear code for every frame that does not belong.
 */
import { describe, expect, it } from 'vitest';
import { Command } from '../../../src/modules/im/msync/schema.js';
import { CLOSE, onFrame, onProvisioned, onUndecodable } from '../../../src/modules/im/msync/session.js';

describe('msync session', () => {
  it('logs in with a PROVISION, then takes UNREAD and SYNC until LOGOUT', () => {
    const a = onFrame('awaiting-provision', Command.PROVISION);
    expect(a).toEqual({ state: 'provisioning', step: { kind: 'provision' } });
    expect(onProvisioned(a.state, true)).toBe('live');
    expect(onFrame('live', Command.UNREAD).step.kind).toBe('unread');
    expect(onFrame('live', Command.SYNC).step.kind).toBe('sync');
    expect(onFrame('live', Command.LOGOUT)).toEqual({ state: 'closed', step: { kind: 'logout' } });
  });

  it('a refused provision closes', () => {
    expect(onProvisioned('provisioning', false)).toBe('closed');
  });

  it.each([Command.SYNC, Command.UNREAD, Command.LOGOUT, Command.NOTICE, 77])('a first frame with command %s closes with 1008', (command) => {
    expect(onFrame('awaiting-provision', command)).toMatchObject({ state: 'closed', step: { kind: 'close', code: CLOSE.protocol } });
  });

  it('a second PROVISION, a client NOTICE or an unknown command closes a live session', () => {
    expect(onFrame('live', Command.PROVISION).step).toMatchObject({ kind: 'close', code: CLOSE.protocol, reason: 'command PROVISION is not accepted here' });
    expect(onFrame('live', Command.NOTICE).step).toMatchObject({ kind: 'close', code: CLOSE.protocol });
    expect(onFrame('live', 99).step).toMatchObject({ kind: 'close', reason: 'unknown command 99' });
  });

  it('an undecodable frame closes with 1007; a closed session ignores everything', () => {
    expect(onUndecodable('live', 'bad')).toMatchObject({ state: 'closed', step: { kind: 'close', code: CLOSE.badFrame } });
    expect(onFrame('closed', Command.SYNC).step.kind).toBe('ignore');
    expect(onUndecodable('closed', 'x').step.kind).toBe('ignore');
  });
});
