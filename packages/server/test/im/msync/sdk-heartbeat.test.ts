/**
 * The heartbeat with the real Easemob Web SDK, on both engines. The SDK's heartbeat is its own
 * UNREAD, sent from a `setInterval` once 30 s of `Date.now()` passed without a frame; the server
 * closes a socket silent for 90 s of its injected clock (4408). The test fakes the SDK's interval
 * and `Date` and moves both with the server's clock: a connection whose SDK keeps its heartbeat
 * outlives several idle timeouts, and one whose heartbeat stopped is closed while it stays open.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeFrame } from '../../../src/modules/im/msync/codec.js';
import { Command } from '../../../src/modules/im/msync/schema.js';
import { CLOSE } from '../../../src/modules/im/msync/session.js';
import type { FakeClock } from '../../helpers/clock.js';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

const unreads = (frames: Uint8Array[]) => frames.filter((f) => decodeFrame(f).command === Command.UNREAD).length;

describe.each(ENGINES)('msync heartbeat with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat']);
  });
  afterAll(async () => w?.close());
  afterEach(() => {
    vi.useRealTimers();
    assertNoForeignRequests();
  });

  /**
   * The SDK sent its login UNREAD, and every UNREAD it sent has its answer: the server stamped the
   * frame before time moves on (`open` may resolve before the login UNREAD is sent).
   */
  const answered = (client: SdkClient) =>
    waitFor(
      () => [unreads(client.socket().sentFrames), unreads(client.socket().receivedFrames)] as const,
      ([sent, received]) => sent > 0 && received === sent,
    );

  it("the SDK's own heartbeat keeps its connection past the idle timeout; one whose heartbeat stopped is closed with 4408", async () => {
    const clock = w.t.clock as FakeClock;
    // Only what the SDK's heartbeat reads is faked: its interval and Date. The server's sweep runs
    // on a real interval and reads the injected clock, moved by the same amount.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'], shouldAdvanceTime: true });
    const tick = async (client: SdkClient, ms: number) => {
      clock.advance(ms);
      vi.advanceTimersByTime(ms);
      await answered(client);
    };

    const ann = await w.login('ann');
    await answered(ann);
    const loginUnreads = unreads(ann.socket().sentFrames);
    await tick(ann, 30_000);
    await tick(ann, 30_000);

    // Ben logs in 60 s after Ann, and his SDK stops its heartbeat (as a frozen tab would). He must
    // not reconnect, so the close is what the test sees.
    const ben = await w.login('ben');
    await answered(ben);
    ben.conn.stopHeartBeat();
    ben.conn.autoReconnectNumMax = 0;
    const benUnreads = unreads(ben.socket().sentFrames);

    for (let i = 0; i < 4; i++) await tick(ann, 30_000);
    // 180 s after Ann's login and 120 s after Ben's: the sweep closes Ben's silent socket ...
    await waitFor(() => ben.socket().closeCode, (code) => code === CLOSE.idle);
    await waitFor(() => ben.of('disconnected').length, (n) => n === 1);
    expect(unreads(ben.socket().sentFrames)).toBe(benUnreads);
    // ... and the same sweep kept Ann's: her SDK sent its heartbeats on its own.
    expect(unreads(ann.socket().sentFrames) - loginUnreads).toBeGreaterThanOrEqual(2);
    expect(ann.socket().closeCode).toBeUndefined();
    expect(ann.of('disconnected')).toEqual([]);
    expect(w.t.app.parley.im.presence.connections(w.appId, 'ann')).toBe(1);
    await waitFor(() => w.t.app.parley.im.presence.connections(w.appId, 'ben'), (n) => n === 0);

    // Still a working session: Ann receives a message sent now.
    const cat = await w.login('cat');
    const sent = await cat.send({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'still here' });
    await waitFor(() => ann.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    for (const c of [ann, cat]) c.close();
  });
});
