/**
 * The msync gateway against frames the SDK never sends, with a bare client: a frame that does not
 * decode, a first frame that is not a provision, an unknown command, an oversized frame and a
 * provision for an unknown app each close that connection with its own code, and the server goes
 * on serving; tokens never reach the logs; failed provisions count per address as failed token
 * checks; a message told of and never pulled is stored again on close. The UNREAD heartbeat keeps
 * a connection alive and one silent for longer than the idle timeout (90 s on the injected clock)
 * is closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCodec, decodeMessageBody } from '../../../src/modules/im/msync/codec.js';
import { Command, ErrorCode, MessageType, Namespace } from '../../../src/modules/im/msync/schema.js';
import { CLOSE } from '../../../src/modules/im/msync/session.js';
import type { FakeClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, RawMsync, type MsyncWorld } from '../../helpers/msync.js';

const closedWith = async (raw: RawMsync) => (await waitFor(() => raw.closed, Boolean)) as { code: number; reason: string };

describe.each(ENGINES)('msync gateway, bad frames and heartbeat on %s', (engine) => {
  let w: MsyncWorld;
  let logged = '';
  const tokens: string[] = [];
  const loggedIn = async (user = 'ann', path = '/ws') => {
    const raw = await RawMsync.connect(w.url, path);
    const token = await w.token(user);
    tokens.push(token);
    raw.provision(w.appKey, user, token);
    await waitFor(() => raw.of(Command.PROVISION).length, (n) => n === 1);
    expect(clientCodec.decodeProvision(raw.of(Command.PROVISION)[0]?.payload)).toEqual({ status: {}, resource: 'raw_1' });
    return raw;
  };

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'bob'], { logs: (line) => void (logged += line) });
  });
  afterAll(async () => w?.close());

  it('logs in on /ws and on /websocket, and answers UNREAD', async () => {
    for (const path of ['/ws', '/websocket']) {
      const raw = await loggedIn('ann', path);
      raw.unread();
      await waitFor(() => raw.of(Command.UNREAD).length, (n) => n === 1);
      expect(clientCodec.decodeUnread(raw.of(Command.UNREAD)[0]?.payload)).toEqual({ status: {}, timestamp: String(w.t.clock.now()) });
      raw.ws.close();
    }
  });

  it('closes on a frame that does not decode (1007), and keeps serving', async () => {
    const raw = await RawMsync.connect(w.url);
    raw.send(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    expect((await closedWith(raw)).code).toBe(CLOSE.badFrame);
    (await loggedIn()).ws.close();
  });

  it('closes when the first frame is not a provision (1008)', async () => {
    const raw = await RawMsync.connect(w.url);
    raw.unread();
    expect(await closedWith(raw)).toEqual({ code: CLOSE.protocol, reason: 'the first frame must be a PROVISION' });
  });

  it('closes on an unknown command after login (1008)', async () => {
    const raw = await loggedIn();
    raw.send(clientCodec.frame(9, {}));
    expect(await closedWith(raw)).toEqual({ code: CLOSE.protocol, reason: 'unknown command 9' });
  });

  it('closes on a frame over 64 KiB (1009), logged as what the client did, not as a server error', async () => {
    const logsBefore = logged.length;
    const raw = await RawMsync.connect(w.url);
    raw.send(Buffer.alloc(65 * 1024, 1));
    expect((await closedWith(raw)).code).toBe(CLOSE.tooLarge);
    const lines = logged.slice(logsBefore).split('\n').filter((l) => l.includes('Max payload size exceeded'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 20, msg: 'websocket closed on a client error' });
    expect(lines[0]).not.toContain('stack');
  });

  it('refuses a provision for an unknown app, then closes (4401)', async () => {
    await waitFor(() => w.t.app.parley.im.presence.connections(w.appId, 'ann'), (n) => n === 0);
    const raw = await RawMsync.connect(w.url);
    raw.provision('nope#none', 'ann', 'YWMtwhatever');
    expect((await closedWith(raw)).code).toBe(CLOSE.refused);
    expect(clientCodec.decodeProvision(raw.of(Command.PROVISION)[0]?.payload).status).toMatchObject({ errorCode: ErrorCode.UNAUTHORIZED });
    expect(w.t.app.parley.im.presence.connections(w.appId, 'ann')).toBe(0);
  });

  it('the UNREAD heartbeat keeps a connection; 90 s of silence closes it (4408)', async () => {
    const clock = w.t.clock as FakeClock;
    const raw = await loggedIn();
    // Bob logs in at the same moment and never sends again.
    const silent = await loggedIn('bob');
    clock.advance(80_000);
    raw.unread();
    await waitFor(() => raw.of(Command.UNREAD).length, (n) => n === 1);
    clock.advance(80_000);
    // The sweep that closes Bob's socket, 160 s after both logins, keeps Ann's: her heartbeat 80 s ago counts.
    expect(await closedWith(silent)).toEqual({ code: CLOSE.idle, reason: 'idle timeout' });
    expect(raw.closed).toBeUndefined();
    clock.advance(11_000);
    expect(await closedWith(raw)).toEqual({ code: CLOSE.idle, reason: 'idle timeout' });
    await waitFor(() => w.online('ann'), (on) => !on);
  });

  it('stores again, on close, a message the client was told of and never pulled', async () => {
    const raw = await loggedIn('ann');
    raw.unread();
    await waitFor(() => raw.of(Command.UNREAD).length, (n) => n === 1);
    await waitFor(() => w.online('ann'), (on) => on);
    const sent = await w.api('POST', '/messages/users', { from: 'ann', to: ['ann'], type: 'txt', body: { msg: 'never pulled' } });
    const msgId = sent.body.data.ann as string;
    await waitFor(() => raw.of(Command.NOTICE).length, (n) => n === 1);
    raw.ws.close();
    await waitFor(async () => (await w.api('GET', `/users/ann/offline_msg_status/${msgId}`)).body?.data?.[msgId], (s) => s === 'undelivered');
    // The next login gets it.
    const again = await loggedIn('ann');
    again.unread();
    await waitFor(() => again.of(Command.UNREAD).length, (n) => n === 1);
    expect(clientCodec.decodeUnread(again.of(Command.UNREAD)[0]?.payload).unread).toEqual([{ queue: { appKey: w.appKey, name: 'ann', domain: 'easemob.com' }, n: 1 }]);
    again.ws.close();
  });

  it('pipelines the sends of one connection: they share commits, each is acknowledged, in order', async () => {
    const receiver = await loggedIn('bob');
    receiver.unread();
    await waitFor(() => w.online('bob'), (on) => on);
    const sender = await loggedIn('ann');
    const db = w.t.app.parley.storage.db;
    const fanoutsDone = async () => Number(/^parley_im_fanout_lag_seconds_count (\S+)$/m.exec((await w.t.app.inject({ method: 'GET', url: '/metrics' })).body)?.[1] ?? 0);
    const jobsLeft = async () => (await db.selectFrom('jobs').select('id').where('queue', '=', 'im.fanout').execute()).length;
    await waitFor(jobsLeft, (n) => n === 0);
    const before = await fanoutsDone();
    const to = { appKey: w.appKey, name: 'bob', domain: 'easemob.com' };
    const ids = Array.from({ length: 20 }, (_, i) => String(i + 1));
    // One burst: the server takes each frame without waiting for the previous send's commit.
    for (const id of ids) {
      const payload = clientCodec.messageBody({ type: MessageType.CHAT, to, contents: [{ type: 0, text: `m${id}` }] });
      sender.send(clientCodec.frame(Command.SYNC, {}, clientCodec.syncUp({ meta: { id, to, ns: Namespace.CHAT, payload } })));
    }
    await waitFor(() => sender.of(Command.SYNC).length, (n) => n === ids.length);
    const acks = sender.of(Command.SYNC).map((f) => clientCodec.decodeSyncDown(f.payload));
    expect(acks.map((a) => [a.metaId, a.status])).toEqual(ids.map((id) => [id, {}]));
    const serverIds = acks.map((a) => BigInt(a.serverId ?? 0));
    expect(serverIds.every((id, i) => i === 0 || id > (serverIds[i - 1] ?? 0n))).toBe(true);

    // The receiver pulls them in the order sent, with the server ids as meta ids.
    await waitFor(() => receiver.of(Command.NOTICE).length, (n) => n === 1);
    const queue = clientCodec.decodeNotice(receiver.of(Command.NOTICE)[0]?.payload).queue;
    const got: Array<[string, string | undefined]> = [];
    for (let key: string | undefined; ; ) {
      const seen = receiver.of(Command.SYNC).length;
      receiver.send(clientCodec.frame(Command.SYNC, {}, clientCodec.syncUp({ queue, ...(key ? { key } : {}) })));
      await waitFor(() => receiver.of(Command.SYNC).length, (n) => n > seen);
      const down = clientCodec.decodeSyncDown(receiver.of(Command.SYNC)[seen]?.payload);
      for (const meta of down.metas ?? []) got.push([String(meta.id), decodeMessageBody(meta.payload).contents?.[0]?.text]);
      if (down.isLast) break;
      key = down.nextKey;
    }
    expect(got).toEqual(acks.map((a, i) => [a.serverId, `m${ids[i]}`]));
    // One fan-out job per commit: fewer commits than messages.
    await waitFor(jobsLeft, (n) => n === 0);
    expect((await fanoutsDone()) - before).toBeLessThan(ids.length / 2);
    sender.ws.close();
    receiver.ws.close();
  });

  it('never logs a token', () => {
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(logged).not.toContain(token);
    expect(logged).not.toContain('YWMtwhatever');
  });
});

describe('msync failed provisions per address', () => {
  it('count with the REST token failures: past the limit even a good token is refused for a while', async () => {
    const w = await msyncWorld('sqlite', ['ann'], { env: { PARLEY_AUTH_FAILURE_LIMIT: '3' } });
    try {
      const good = await w.token('ann');
      const reasons: string[] = [];
      for (let i = 0; i < 4; i++) {
        const raw = await RawMsync.connect(w.url);
        raw.provision(w.appKey, 'ann', i < 3 ? `YWMtbad-${i}` : good);
        expect((await closedWith(raw)).code).toBe(CLOSE.refused);
        reasons.push(clientCodec.decodeProvision(raw.of(Command.PROVISION)[0]?.payload).status?.reason ?? '');
      }
      expect(reasons).toEqual(['Auth failed', 'Auth failed', 'Auth failed', 'too many failed logins from this address; try again later']);
    } finally {
      await w.close();
    }
  });
});
