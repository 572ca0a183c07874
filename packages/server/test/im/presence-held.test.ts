/**
 * InProcessPresence holds live frames for a socket that is not ready yet and sends them, in order,
 * after what it sent before becoming ready; past its bound it closes that socket as a slow
 * consumer (1013) and sends the ready ones on as before.
 */
import type { ImServerFrame } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../src/modules/im/ports.js';
import { InProcessPresence, type ImConnection } from '../../src/modules/im/presence.js';

class RecordingConnection implements ImConnection {
  readonly got: string[] = [];
  closed: number | undefined;
  constructor(readonly id: string) {}
  send(frame: ImServerFrame): void {
    this.got.push(frame.op === 'message' ? `live ${frame.msg_id}` : frame.op);
  }
  sendStored(messages: readonly StoredMessage[]): string[] {
    for (const m of messages) this.got.push(`stored ${m.msgId}`);
    return [];
  }
  sendKept(): void {}
  room(): Promise<number> {
    return Promise.resolve(100);
  }
  close(code: number): void {
    this.closed = code;
  }
}

const message = (id: string): ImServerFrame => ({ op: 'message', msg_id: id, from: 'ann', to: 'ben', chat_type: 'chat', timestamp: 1, payload: { bodies: [{ type: 'txt', msg: id }], ext: {} } });

describe('frames held for a socket that is not ready', () => {
  it('are sent after its stored messages, in order, when it becomes ready', async () => {
    const presence = new InProcessPresence();
    const one = new RecordingConnection('one');
    const two = new RecordingConnection('two');
    presence.add('app', 'ben', one);
    presence.markReady('app', 'ben', one);
    presence.add('app', 'ben', two);
    // Its drain hands it a stored message before it is ready.
    two.sendStored([{ appId: 'app', msgId: 's1', from: 'ann', to: 'ben', chatType: 'chat', source: 'rest', timestamp: 1, payload: { bodies: [], ext: {} } }]);
    expect(await presence.deliver('app', ['ben'], message('m1'))).toEqual(new Set(['ben']));
    expect(await presence.deliver('app', ['ben'], message('m2'))).toEqual(new Set(['ben']));
    expect(two.got).toEqual(['stored s1']);
    presence.markReady('app', 'ben', two);
    expect(two.got).toEqual(['stored s1', 'live m1', 'live m2']);
    expect(one.got).toEqual(['live m1', 'live m2']);
    await presence.deliver('app', ['ben'], message('m3'));
    expect(two.got.at(-1)).toBe('live m3');
  });

  it('past the bound, close that socket with 1013 and leave the others be', async () => {
    const presence = new InProcessPresence(2);
    const one = new RecordingConnection('one');
    const two = new RecordingConnection('two');
    presence.add('app', 'ben', one);
    presence.markReady('app', 'ben', one);
    presence.add('app', 'ben', two);
    for (const id of ['m1', 'm2']) await presence.deliver('app', ['ben'], message(id));
    expect(two.closed).toBeUndefined();
    expect(await presence.deliver('app', ['ben'], message('m3'))).toEqual(new Set(['ben']));
    expect(two.closed).toBe(1013);
    expect(one.got).toEqual(['live m1', 'live m2', 'live m3']);
  });
});
