/**
 * One socket's feed of stored messages (modules/im/drains.ts) over a fake store whose reads see a
 * snapshot taken when they begin (as a PostgreSQL read on another pooled connection does): rows
 * the client acknowledged are never handed out again, even by a read that began before their mark
 * committed and ended after it; a read begun after the mark lets the feed forget them.
 */
import { describe, expect, it } from 'vitest';
import { Drains } from '../../src/modules/im/drains.js';
import type { StoredMessage } from '../../src/modules/im/ports.js';
import { InProcessPresence, type ImConnection } from '../../src/modules/im/presence.js';
import { FakeClock } from '../helpers/clock.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const message = (id: number): StoredMessage => ({ appId: 'app', msgId: String(id), from: 'ann', to: 'ben', chatType: 'chat', source: 'rest', timestamp: id, payload: { bodies: [], ext: {} } });

class SnapshotStore {
  readonly undelivered = new Set<string>(['1', '2', '3']);
  /** When set, the next read takes its snapshot now and answers once released. */
  hold: ReturnType<typeof deferred> | undefined;
  markGate: ReturnType<typeof deferred> | undefined;
  reads = 0;

  async readOffline(_app: string, _user: string, after: string, limit: number): Promise<StoredMessage[]> {
    this.reads++;
    const snapshot = [...this.undelivered].filter((id) => Number(id) > Number(after)).sort((a, b) => Number(a) - Number(b)).slice(0, limit);
    const hold = this.hold;
    this.hold = undefined;
    if (hold) await hold.promise;
    return snapshot.map((id) => message(Number(id)));
  }

  async markDelivered(_app: string, _user: string, ids: readonly string[]): Promise<number> {
    if (this.markGate) await this.markGate.promise;
    for (const id of ids) this.undelivered.delete(id);
    return ids.length;
  }
}

class RecordingSocket implements ImConnection {
  readonly id = 'socket';
  readonly handed: string[] = [];
  acknowledge: ((ids: string[]) => void) | undefined;
  send(): void {}
  async room(): Promise<number> {
    return 100;
  }
  sendStored(messages: readonly StoredMessage[], acknowledge: (ids: string[]) => void): string[] {
    this.acknowledge = acknowledge;
    this.handed.push(...messages.map((m) => m.msgId));
    return [];
  }
  sendKept(): void {}
  close(): void {}
}

describe('a socket feed of stored messages', () => {
  it('never hands an acknowledged row out again, even to a read that began before its mark committed', async () => {
    const store = new SnapshotStore();
    const drains = new Drains(store, new InProcessPresence(), new FakeClock(), { offlineDelivered: () => undefined });
    const socket = new RecordingSocket();
    const feed = drains.connect('app', 'ben', socket, { active: true });
    await feed.ready;
    await drains.drain('app', 'ben'); // the rescan after ready finds them in hand
    expect(socket.handed).toEqual(['1', '2', '3']);

    // The client acknowledges; the mark is slow. A rescan begins before it commits...
    store.markGate = deferred();
    socket.acknowledge?.(['1', '2', '3']);
    const stale = deferred();
    store.hold = stale;
    const rescan = drains.drain('app', 'ben');
    await new Promise((r) => setImmediate(r));
    // ...the mark commits, and only then does the rescan's stale read come back.
    store.markGate.resolve();
    await new Promise((r) => setImmediate(r));
    stale.resolve();
    await rescan;
    expect(socket.handed).toEqual(['1', '2', '3']);
    expect(store.undelivered.size).toBe(0);

    // A row stored later is handed out once; the marked ones are forgotten by then.
    store.undelivered.add('4');
    await drains.drain('app', 'ben');
    expect(socket.handed).toEqual(['1', '2', '3', '4']);
    feed.close();
  });
});
