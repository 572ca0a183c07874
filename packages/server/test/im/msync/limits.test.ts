/**
 * The msync gateway holds the limits REST holds, on both engines: one message size for every
 * protocol (over 5 KiB refused with the status the SDK reports as MESSAGE_SIZE_LIMIT, nothing
 * stored); socket sends charged to the sender's share and the app's limit (refused with the SDK's
 * traffic-limit status, the JSON socket's `reach_limit`); receipts, recalls and edits charged to
 * the user's own bucket of those, apart from sends, refused the same way; sockets that never log in closed after
 * the provision timeout and capped per address, so they cannot keep others out.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { clientCodec } from '../../../src/modules/im/msync/codec.js';
import { Command, ErrorCode, MessageType, Namespace } from '../../../src/modules/im/msync/schema.js';
import { CLOSE } from '../../../src/modules/im/msync/session.js';
import type { FakeClock } from '../../helpers/clock.js';
import { assertNoForeignRequests } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, RawMsync, type MsyncWorld } from '../../helpers/msync.js';

const text = (bytes: number) => 'x'.repeat(bytes);

/** A logged-in bare client that sends CHAT metas and reads their answers. */
async function sender(w: MsyncWorld, user: string, resource = `send_${user}`, from = '10.0.0.2') {
  const raw = await RawMsync.connect(w.url, '/ws', { 'x-forwarded-for': from });
  raw.provision(w.appKey, user, await w.token(user), resource);
  await waitFor(() => raw.of(Command.PROVISION).length, (n) => n === 1);
  let next = 0;
  const send = (to: string, msg: string) => {
    const jid = { appKey: w.appKey, name: to, domain: 'easemob.com' };
    const payload = clientCodec.messageBody({ type: MessageType.CHAT, to: jid, contents: [{ type: 0, text: msg }] });
    raw.send(clientCodec.frame(Command.SYNC, {}, clientCodec.syncUp({ meta: { id: String(++next), to: jid, ns: Namespace.CHAT, payload } })));
  };
  // In the order sent (a refusal is answered at once, an accepted send once committed).
  const answers = () =>
    raw
      .of(Command.SYNC)
      .map((f) => clientCodec.decodeSyncDown(f.payload))
      .filter((d) => d.metaId)
      .sort((a, b) => Number(a.metaId) - Number(b.metaId));
  return { raw, send, answers };
}

const messagesOf = async (w: MsyncWorld, user: string) =>
  Number((await w.t.app.parley.storage.db.selectFrom('im_messages').select((eb) => eb.fn.countAll().as('n')).where('sender', '=', user).executeTakeFirstOrThrow()).n);

describe.each(ENGINES)('msync limits on %s', (engine) => {
  let w: MsyncWorld;
  const open: RawMsync[] = [];

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'bob', 'cat', 'dan', 'eve'], {
      // Loopback is a trusted proxy, so clients can appear from addresses of their own (X-Forwarded-For).
      env: { PARLEY_IM_USER_SEND_RATE_LIMIT: '20', PARLEY_IM_USER_CHANGE_RATE_LIMIT: '5', PARLEY_IM_RATE_LIMIT: '30', PARLEY_MAX_CONNECTIONS: '100', PARLEY_TRUST_PROXY: '127.0.0.1' },
    });
  });
  afterEach(() => {
    for (const raw of open.splice(0)) raw.ws.close();
  });
  afterAll(async () => w?.close());

  it('refuses a message over 5 KiB with "Sorry, data is too large", stores nothing; one just under goes', async () => {
    const ann = await sender(w, 'ann');
    open.push(ann.raw);
    ann.send('bob', text(6 * 1024));
    await waitFor(() => ann.answers().length, (n) => n === 1);
    expect(ann.answers()[0]?.status).toEqual({ errorCode: ErrorCode.PERMISSION_DENIED, reason: 'Sorry, data is too large' });
    expect(await messagesOf(w, 'ann')).toBe(0);
    ann.send('bob', text(4 * 1024));
    await waitFor(() => ann.answers().length, (n) => n === 2);
    expect(ann.answers()[1]?.status).toEqual({});
    expect(await messagesOf(w, 'ann')).toBe(1);
  });

  it('the real Web SDK reports an oversized message as MESSAGE_SIZE_LIMIT (511)', async () => {
    const cat = await w.login('cat');
    await expect(cat.send({ type: 'txt', chatType: 'singleChat', to: 'bob', msg: text(6 * 1024) })).rejects.toMatchObject({ type: 511 });
    expect(await messagesOf(w, 'cat')).toBe(0);
    assertNoForeignRequests();
    cat.close();
  });

  it("holds one user's socket sends to their share and the app's limit, as the SDK's traffic limit", async () => {
    const clock = w.t.clock as FakeClock;
    // Tokens and the JSON socket's upgrade are REST requests on the app's limit: taken first.
    const bob = await sender(w, 'bob');
    const dan = await sender(w, 'dan');
    open.push(bob.raw, dan.raw);
    const json = await SocketClient.connect(w.url, w.im.base, await w.token('eve'));
    const sdk = await w.login('cat');
    clock.advance(2_000); // a fresh window for the app
    for (let i = 0; i < 25; i++) bob.send('ann', `b${i}`);
    await waitFor(() => bob.answers().length, (n) => n === 25);
    const traffic = { errorCode: ErrorCode.PERMISSION_DENIED, reason: 'traffic limit' };
    // bob's share: 20 a second.
    expect(bob.answers().slice(0, 20).map((a) => a.status)).toEqual(Array(20).fill({}));
    expect(bob.answers().slice(20).map((a) => a.status)).toEqual(Array(5).fill(traffic));
    // The app's 30 a second: dan gets what is left of it, 10.
    for (let i = 0; i < 15; i++) dan.send('ann', `d${i}`);
    await waitFor(() => dan.answers().length, (n) => n === 15);
    expect(dan.answers().slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill({}));
    expect(dan.answers().slice(10).map((a) => a.status)).toEqual(Array(5).fill(traffic));
    // The JSON socket is held to the same budget.
    const refused = await json.request({ op: 'send', id: 'j1', chat_type: 'chat', to: 'ann', bodies: [{ type: 'txt', msg: 'hi' }] });
    expect(refused).toMatchObject({ op: 'error', id: 'j1', error: 'reach_limit' });
    // And the real SDK reports it as MESSAGE_CURRENT_LIMITING (509).
    await expect(sdk.send({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'too many' })).rejects.toMatchObject({ type: 509 });
    sdk.close();
    // The next window lets them send again.
    clock.advance(1_000);
    bob.send('ann', 'again');
    await waitFor(() => bob.answers().length, (n) => n === 26);
    expect(bob.answers()[25]?.status).toEqual({});
    await json.close();
  });

  it("holds one user's receipts, recalls and edits to their own bucket, apart from sends, as the SDK's traffic limit", async () => {
    const clock = w.t.clock as FakeClock;
    const ann = await sender(w, 'ann', 'acks_ann');
    open.push(ann.raw);
    const json = await SocketClient.connect(w.url, w.im.base, await w.token('eve'));
    const sdk = await w.login('cat');
    clock.advance(2_000); // fresh windows
    const jid = { appKey: w.appKey, name: 'bob', domain: 'easemob.com' };
    for (let i = 0; i < 7; i++) {
      const payload = clientCodec.messageBody({ type: MessageType.READ_ACK, to: jid, ackMessageId: String(1000 + i) });
      ann.raw.send(clientCodec.frame(Command.SYNC, {}, clientCodec.syncUp({ meta: { id: String(100 + i), to: jid, ns: Namespace.CHAT, payload } })));
    }
    await waitFor(() => ann.answers().length, (n) => n === 7);
    const traffic = { errorCode: ErrorCode.PERMISSION_DENIED, reason: 'traffic limit' };
    expect(ann.answers().slice(0, 5).map((a) => a.status)).toEqual(Array(5).fill({}));
    expect(ann.answers().slice(5).map((a) => a.status)).toEqual(Array(2).fill(traffic));
    // Sends are not drawn from it: ann still sends (its meta id is 1).
    ann.send('bob', 'still sending');
    await waitFor(() => ann.answers().length, (n) => n === 8);
    expect(ann.answers().find((a) => a.metaId === '1')?.status).toEqual({});
    // The JSON socket: the sixth receipt in a second gets reach_limit, its send still goes.
    for (let i = 0; i < 5; i++) expect((await json.request({ op: 'receipt', id: `r${i}`, kind: 'read', to: 'bob', msg_id: String(2000 + i) })).op).toBe('ack');
    expect(await json.request({ op: 'receipt', id: 'r5', kind: 'read', to: 'bob', msg_id: '2005' })).toMatchObject({ op: 'error', id: 'r5', error: 'reach_limit' });
    expect(await json.request({ op: 'send', id: 's1', chat_type: 'chat', to: 'bob', bodies: [{ type: 'txt', msg: 'hi' }] })).toMatchObject({ op: 'ack', id: 's1' });
    // The real SDK: edits past the bucket reject with MESSAGE_CURRENT_LIMITING (509).
    const sent = await sdk.send({ type: 'txt', chatType: 'singleChat', to: 'bob', msg: 'v0' });
    const create = (msg: string) => (sdk.sdk.default?.message ?? sdk.sdk.message).create({ type: 'txt', chatType: 'singleChat', to: 'bob', msg });
    for (let i = 1; i <= 5; i++) await sdk.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage: create(`v${i}`) });
    await expect(sdk.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage: create('v6') })).rejects.toMatchObject({ type: 509 });
    // The next window lets them through again.
    clock.advance(1_000);
    expect((await json.request({ op: 'receipt', id: 'r6', kind: 'read', to: 'bob', msg_id: '2006' })).op).toBe('ack');
    await sdk.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage: create('v7') });
    sdk.close();
    await json.close();
  });

  it('closes sockets that never log in after the provision timeout, and caps them per address, so 100 of them keep nobody out', async () => {
    // PARLEY_MAX_CONNECTIONS is 100: a host opening 100 sockets that never send a frame.
    const idle: RawMsync[] = [];
    let refused = 0;
    for (let i = 0; i < 100; i++) {
      try {
        idle.push(await RawMsync.connect(w.url, '/ws', { 'x-forwarded-for': '10.0.0.66' }));
      } catch (error) {
        expect((error as Error).message).toBe('refused: 429');
        refused++;
      }
    }
    open.push(...idle);
    // PARLEY_MSYNC_PENDING_PER_IP (32) held; the rest refused before the upgrade.
    expect(idle).toHaveLength(32);
    expect(refused).toBe(68);
    // Others are not kept out: REST answers over a real connection, and a login from elsewhere goes through.
    expect((await fetch(`${w.url}/healthz`)).status).toBe(200);
    const ann = await sender(w, 'ann', 'logged_in');
    open.push(ann.raw);
    (w.t.clock as FakeClock).advance(10_001);
    for (const raw of idle) expect(await waitFor(() => raw.closed, Boolean, 5_000)).toEqual({ code: CLOSE.idle, reason: 'provision timeout' });
    // A logged-in socket is not touched by the provision timeout, and once they are gone, new sockets open.
    expect(ann.raw.closed).toBeUndefined();
    const again = await RawMsync.connect(w.url, '/ws', { 'x-forwarded-for': '10.0.0.66' });
    open.push(again);
    expect(again.ws.readyState).toBe(WebSocket.OPEN);
  });
});
