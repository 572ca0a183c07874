/**
 * Messaging over REST and real sockets (contract 4.3): one-to-one online and offline, groups,
 * chat rooms, moderation, limits and errors, the legacy endpoint, socket auth and lifecycle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImMessageFrame } from '@parley/protocol';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

describe.each(ENGINES)('IM messaging on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  const sockets: SocketClient[] = [];
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);
  const connect = async (username: string) => {
    const socket = await SocketClient.connect(url, im.base, await userToken(t.app, im, username));
    sockets.push(socket);
    // Ready (counted online) once its stored messages were pushed.
    await waitFor(() => t.app.parley.im.presence.onlineAmong(appId, [username]), (s) => s.has(username));
    return socket;
  };
  const settle = () => t.app.parley.jobs.idle('im.fanout');
  const offlineCount = async (username: string) => (await api('GET', `/users/${username}/offline_msg_count`)).body.data[username] as number;
  const txt = (msg: string) => ({ type: 'txt', body: { msg } });
  let appId: string;

  beforeAll(async () => {
    // The per-app rate limit has its own test (apps-tokens); bursts here must not trip it.
    t = await createTestApp(engine, { env: { PARLEY_IM_RATE_LIMIT: '10000' } });
    im = await createImApp(t.app);
    appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    url = await listen(t.app);
    await createUsers(t.app, im, 'alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina', 'hank', 'ivy');
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await t?.close();
  });

  it('delivers a one-to-one REST message to an online receiver at once', async () => {
    const bob = await connect('bob');
    const res = await api('POST', '/messages/users', { from: 'alice', to: ['bob'], ...txt('hello bob'), ext: { k: 'v' } });
    expect(res.status).toBe(200);
    const msgId = res.body.data.bob as string;
    expect(msgId).toMatch(/^\d+$/);
    const [frame] = await bob.waitFrames('message', 1);
    expect(frame).toEqual({
      op: 'message',
      msg_id: msgId,
      from: 'alice',
      to: 'bob',
      chat_type: 'chat',
      timestamp: expect.any(Number),
      payload: { bodies: [{ type: 'txt', msg: 'hello bob' }], ext: { k: 'v' } },
    });
    await settle();
    expect(await offlineCount('bob')).toBe(0);
    // from defaults to "admin".
    const fromAdmin = await api('POST', '/messages/users', { to: ['bob'], ...txt('from admin') });
    expect(fromAdmin.status).toBe(200);
    expect((await bob.waitFrames('message', 2))[1]?.from).toBe('admin');
    // Pushed live before the answer; the fan-out job, finished before the second send, did not push
    // it again (a copy would have arrived before the second message on the same socket).
    expect(bob.of('message').filter((f) => f.msg_id === msgId)).toHaveLength(1);
  });

  it('stores one-to-one messages for an offline receiver and pushes them in order on connect', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await api('POST', '/messages/users', { from: 'alice', to: ['carol'], ...txt(`m${n}`) })).body.data.carol);
    expect(ids.map(BigInt)).toEqual([...ids.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    await settle();
    expect(await offlineCount('carol')).toBe(3);
    expect((await api('GET', `/users/carol/offline_msg_status/${ids[0]}`)).body.data).toEqual({ [ids[0] as string]: 'undelivered' });

    const carol = await connect('carol');
    const frames = await carol.waitFrames('message', 3);
    expect(frames.map((f) => f.msg_id)).toEqual(ids);
    expect(frames.map((f) => f.payload.bodies[0]?.msg)).toEqual(['m1', 'm2', 'm3']);
    expect(frames.every((f) => f.offline === true)).toBe(true);
    // Delivered once written to the socket (the JSON socket's acknowledgement).
    await waitFor(() => offlineCount('carol'), (n) => n === 0);
    expect((await api('GET', `/users/carol/offline_msg_status/${ids[2]}`)).body.data[ids[2] as string]).toBe('delivered');
    expect((await api('GET', '/users/carol/offline_msg_status/123')).status).toBe(404);

    // Once connected, a new message arrives live, after the stored ones.
    await api('POST', '/messages/users', { from: 'alice', to: ['carol'], ...txt('live') });
    const all = await carol.waitFrames('message', 4);
    expect(all[3]?.payload.bodies[0]?.msg).toBe('live');
    expect(all[3]?.offline).toBeUndefined();

    // A clean disconnect makes the user offline again.
    await carol.close();
    await waitFor(() => t.app.parley.im.presence.onlineAmong(appId, ['carol']), (s) => s.size === 0);
    await api('POST', '/messages/users', { from: 'alice', to: ['carol'], ...txt('after close') });
    await settle();
    expect(await offlineCount('carol')).toBe(1);
  });

  it('accepts concurrent sends, each stored once and pushed in msg_id order', async () => {
    const sends = await Promise.all(Array.from({ length: 40 }, (_, i) => api('POST', '/messages/users', { from: 'alice', to: ['ivy'], ...txt(`c${i}`) })));
    expect(sends.every((r) => r.status === 200)).toBe(true);
    const ids = sends.map((r) => r.body.data.ivy as string);
    expect(new Set(ids).size).toBe(40);
    await settle();
    expect(await offlineCount('ivy')).toBe(40);
    const ivy = await connect('ivy');
    const frames = await ivy.waitFrames('message', 40);
    const got = frames.map((f) => BigInt(f.msg_id));
    expect(got).toEqual([...ids.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    await settle();
    expect(ivy.of('message')).toHaveLength(40);
    // Delivered once written to the socket (the JSON socket's acknowledgement).
    await waitFor(() => offlineCount('ivy'), (n) => n === 0);
  });

  it('fans group messages out to online members and stores them for offline ones', async () => {
    const group = await api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'dave', members: ['erin', 'frank', 'gina'] });
    const groupId = group.body.data.groupid as string;
    const erin = await connect('erin');
    const frank = await connect('frank');

    const ack = await erin.request({ op: 'send', id: 'c1', chat_type: 'groupchat', to: groupId, bodies: [{ type: 'txt', msg: 'hi team' }], ext: { a: 1 } });
    expect(ack).toMatchObject({ op: 'ack', id: 'c1', msg_id: expect.stringMatching(/^\d+$/), timestamp: expect.any(Number) });
    const [got] = await frank.waitFrames('message', 1);
    expect(got).toMatchObject({ msg_id: (ack as { msg_id: string }).msg_id, from: 'erin', to: groupId, group_id: groupId, chat_type: 'groupchat', payload: { bodies: [{ type: 'txt', msg: 'hi team' }], ext: { a: 1 } } });
    await settle();
    // The sender does not get its own message; offline members (owner dave, gina) have it stored.
    expect(erin.of('message')).toHaveLength(0);
    expect(await offlineCount('dave')).toBe(1);
    expect(await offlineCount('gina')).toBe(1);
    expect(await offlineCount('frank')).toBe(0);

    // REST to a group works the same way and answers with the group id.
    const rest = await api('POST', '/messages/chatgroups', { from: 'dave', to: [groupId], type: 'cmd', body: { action: 'ping' } });
    expect(Object.keys(rest.body.data)).toEqual([groupId]);
    expect((await frank.waitFrames('message', 2))[1]?.payload.bodies).toEqual([{ type: 'cmd', action: 'ping' }]);
    await settle();
    expect(await offlineCount('gina')).toBe(2);

    // A socket user who is not a member cannot write to the group.
    const hank = await connect('hank');
    const denied = await hank.request({ op: 'send', id: 'x', chat_type: 'groupchat', to: groupId, bodies: [{ type: 'txt', msg: 'let me in' }] });
    expect(denied).toMatchObject({ op: 'error', id: 'x', error: 'forbidden_op' });
  });

  it('pushes each group message exactly once to each online member under concurrent sends', async () => {
    // The fan-out job can be claimed the instant a message commits, while live delivery is still
    // deciding who is online; the two must never both push the same message to a socket.
    const group = await api('POST', '/chatgroups', { groupname: 'busy', public: true, owner: 'ivy', members: ['alice', 'bob'] });
    const groupId = group.body.data.groupid as string;
    const alice = await connect('alice');
    const bob = await connect('bob');
    const before = { alice: alice.of('message').length, bob: bob.of('message').length };
    // Widen the window: presence answers slowly, as a remote (Redis) presence would.
    const presence = t.app.parley.im.presence;
    const onlineAmong = presence.onlineAmong.bind(presence);
    presence.onlineAmong = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return onlineAmong(...args);
    };
    const sends = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api('POST', '/messages/chatgroups', { from: 'ivy', to: [groupId], type: 'txt', body: { msg: `burst ${i}` } })),
    ).finally(() => {
      presence.onlineAmong = onlineAmong;
    });
    expect(sends.map((r) => r.status)).toEqual(sends.map(() => 200));
    const ids = sends.map((r) => r.body.data[groupId] as string);
    await settle();
    for (const [name, socket] of [['alice', alice], ['bob', bob]] as const) {
      const got = (await socket.waitFrames('message', before[name] + ids.length)).slice(before[name]).map((f) => f.msg_id);
      expect(got.sort()).toEqual([...ids].sort());
    }
    // Nothing more arrives later either.
    await settle();
    expect(alice.of('message').length).toBe(before.alice + ids.length);
    expect(bob.of('message').length).toBe(before.bob + ids.length);
    await alice.close();
    await bob.close();
  });

  it('delivers chat-room messages only to members present, and never stores them', async () => {
    const room = await api('POST', '/chatrooms', { name: 'lobby', description: 'everyone', owner: 'alice', members: ['bob', 'gina'] });
    const roomId = room.body.data.id as string;
    const bob = sockets.find((s) => !s.closed && s.frames.some((f) => f.op === 'message' && (f as ImMessageFrame).to === 'bob')) as SocketClient;
    const ginaBefore = await offlineCount('gina');

    const res = await api('POST', '/messages/chatrooms', { from: 'alice', to: [roomId], ...txt('welcome') });
    expect(res.status).toBe(200);
    expect(await bob.waitText('welcome')).toMatchObject({ chat_type: 'chatroom', group_id: roomId, to: roomId, from: 'alice' });
    await settle();
    expect(await offlineCount('gina')).toBe(ginaBefore);

    // hank joins over the socket, gets the next message, leaves, and gets no more.
    const hank = sockets.find((s) => !s.closed && s.frames.some((f) => f.op === 'error' && f.id === 'x')) as SocketClient;
    expect(await hank.request({ op: 'join', id: 'j1', room: roomId })).toMatchObject({ op: 'ack', id: 'j1' });
    await api('POST', '/messages/chatrooms', { from: 'alice', to: [roomId], ...txt('second') });
    const hankFrames = await hank.waitFrames('message', 1);
    expect(hankFrames[0]?.payload.bodies[0]?.msg).toBe('second');
    expect(await hank.request({ op: 'send', id: 's1', chat_type: 'chatroom', to: roomId, bodies: [{ type: 'txt', msg: 'hank here' }] })).toMatchObject({ op: 'ack' });
    expect(await bob.waitText('hank here')).toMatchObject({ from: 'hank' });
    expect(await hank.request({ op: 'leave', id: 'l1', room: roomId })).toMatchObject({ op: 'ack', id: 'l1' });
    await api('POST', '/messages/chatrooms', { from: 'alice', to: [roomId], ...txt('third') });
    await bob.waitText('third');
    await settle();
    expect(hank.of('message')).toHaveLength(1);
    expect((await hank.request({ op: 'join', id: 'j2', room: '999' })).op).toBe('error');
  });

  it('rejects messages with a sensitive word over REST and socket, delivering nothing', async () => {
    const put = await api('PUT', '/moderation/sensitive-words', { words: ['Forbidden', 'spam'] });
    expect(put.body.data.words).toEqual(['forbidden', 'spam']);
    expect((await api('GET', '/moderation/sensitive-words')).body.data.words).toEqual(['forbidden', 'spam']);
    const countMessages = async () => Number((await t.app.parley.storage.db.selectFrom('im_messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await countMessages();
    const hankOffline = await offlineCount('alice');

    const rest = await api('POST', '/messages/users', { from: 'bob', to: ['alice'], ...txt('this is FORBIDDEN text') });
    expect(rest.status).toBe(403);
    expect(rest.body.error).toBe('forbidden_op');
    const legacy = await api('POST', '/messages', { target_type: 'users', target: ['alice'], msg: { type: 'txt', msg: 'buy spam' } });
    expect(legacy.status).toBe(403);

    const erin = await connect('erin');
    const socketReply = await erin.request({ op: 'send', id: 'bad1', chat_type: 'chat', to: 'alice', bodies: [{ type: 'txt', msg: 'spam spam' }] });
    expect(socketReply).toMatchObject({ op: 'error', id: 'bad1', error: 'forbidden_op' });

    await settle();
    expect(await countMessages()).toBe(before);
    expect(await offlineCount('alice')).toBe(hankOffline);
    const fine = await erin.request({ op: 'send', id: 'ok1', chat_type: 'chat', to: 'alice', bodies: [{ type: 'txt', msg: 'all good' }] });
    expect(fine.op).toBe('ack');
    await api('PUT', '/moderation/sensitive-words', { words: [] });
  });

  it('enforces receiver limits, body types and the 5 KiB limit with Easemob error names', async () => {
    const many = Array.from({ length: 601 }, (_, i) => `u${i}`);
    const tooMany = await api('POST', '/messages/users', { to: many, ...txt('x') });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toBe('illegal_argument');
    expect(tooMany.body.error_description).toContain('to');
    expect((await api('POST', '/messages/chatgroups', { to: ['1', '2', '3', '4'], ...txt('x') })).status).toBe(400);
    expect((await api('POST', '/messages/chatrooms', { to: Array.from({ length: 11 }, (_, i) => String(i + 1)), ...txt('x') })).status).toBe(400);

    const big = await api('POST', '/messages/users', { to: ['bob'], ...txt('x'.repeat(5 * 1024)) });
    expect(big.status).toBe(400);
    expect(big.body).toMatchObject({ error: 'message_send_error', error_description: 'message is too large' });

    const cases: Array<[unknown, string]> = [
      [{ to: ['bob'], type: 'sticker', body: { msg: 'x' } }, 'type'],
      [{ to: ['bob'], type: 'txt', body: {} }, 'body.msg'],
      [{ to: ['bob'], type: 'img', body: { filename: 'a.png' } }, 'body.url'],
      [{ to: ['bob'], type: 'img', body: { url: 'ftp://x/a.png', filename: 'a.png' } }, 'body.url'],
      [{ to: ['bob'], type: 'audio', body: { url: 'http://x/a.mp3', filename: 'a.mp3' } }, 'body.length'],
      [{ to: ['bob'], type: 'loc', body: { lat: 'north', lng: 1, addr: 'x' } }, 'body.lat'],
      [{ to: ['bob'], type: 'custom', body: { customEvent: 'e', customExts: { a: 1 } } }, 'body.customExts'],
      [{ type: 'txt', body: { msg: 'x' } }, 'to'],
      [{ to: ['Not Valid!'], ...txt('x') }, 'to[0]'],
    ];
    for (const [payload, field] of cases) {
      const res = await api('POST', '/messages/users', payload);
      expect(res.status, JSON.stringify(payload)).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
      expect(res.body.error_description).toContain(field);
    }
    const unknownUser = await api('POST', '/messages/users', { to: ['nobody'], ...txt('x') });
    expect(unknownUser.status).toBe(404);
    expect(unknownUser.body.error).toBe('service_resource_not_found');
    expect((await api('POST', '/messages/chatgroups', { to: ['12345'], ...txt('x') })).status).toBe(404);

    // Every body type of the contract is accepted.
    for (const [type, body] of [
      ['img', { url: 'https://cdn/x.png', filename: 'x.png', size: { width: 1, height: 2 } }],
      ['audio', { url: 'https://cdn/x.amr', filename: 'x.amr', length: 3 }],
      ['video', { url: 'https://cdn/x.mp4', filename: 'x.mp4', length: 9, thumb: 'https://cdn/t.jpg' }],
      ['file', { url: 'https://cdn/x.pdf', filename: 'x.pdf' }],
      ['loc', { lat: '39.9', lng: 116.3, addr: 'Beijing' }],
      ['cmd', { action: 'refresh' }],
      ['custom', { customEvent: 'gift', customExts: { id: '7' } }],
    ] as const) {
      const res = await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type, body });
      expect(res.status, type).toBe(200);
    }
  });

  it('accepts the legacy /messages form', async () => {
    await settle();
    const bob = sockets.find((s) => !s.closed && s.frames.some((f) => f.op === 'message' && (f as ImMessageFrame).to === 'bob')) as SocketClient;
    const res = await api('POST', '/messages', { target_type: 'users', target: ['bob', 'carol'], msg: { type: 'txt', msg: 'legacy hi' }, from: 'alice', ext: { x: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ bob: 'success', carol: 'success' });
    expect(await bob.waitText('legacy hi')).toMatchObject({ from: 'alice', payload: { bodies: [{ type: 'txt', msg: 'legacy hi' }], ext: { x: 1 } } });
    const badType = await api('POST', '/messages', { target_type: 'users', target: ['bob'], msg: { type: 'nope' } });
    expect(badType.status).toBe(400);
    expect(badType.body.error_description).toContain('msg.type');
    const badTarget = await api('POST', '/messages', { target_type: 'people', target: ['bob'], msg: { type: 'txt', msg: 'x' } });
    expect(badTarget.status).toBe(400);
  });

  it('answers bad frames with error frames and keeps the socket open', async () => {
    const gina = await connect('gina');
    gina.send('not json');
    gina.send({ op: 'dance' });
    gina.send([1, 2]);
    gina.send({ op: 'send', id: 'big', chat_type: 'chat', to: 'bob', bodies: [{ type: 'txt', msg: 'y'.repeat(6000) }] });
    gina.send({ op: 'send', id: 'e1', chat_type: 'chat', to: 'bob', bodies: [{ type: 'nope' }] });
    gina.send({ op: 'send', id: 'e2', chat_type: 'private', to: 'bob', bodies: [{ type: 'txt', msg: 'x' }] });
    const errors = await gina.waitFrames('error', 6);
    expect(errors.map((e) => e.error)).toEqual(['illegal_argument', 'illegal_argument', 'illegal_argument', 'message_send_error', 'illegal_argument', 'illegal_argument']);
    expect(errors[1]?.error_description).toContain('op');
    expect(errors[4]).toMatchObject({ id: 'e1' });
    expect(errors[4]?.error_description).toContain('bodies[0].type');
    gina.send({ op: 'ping', id: 'p' });
    expect((await gina.waitFrames('pong', 1))[0]).toMatchObject({ op: 'pong', id: 'p' });
    expect(gina.closed).toBe(false);
  });

  it('refuses sockets without a valid user token', async () => {
    await expect(SocketClient.connect(url, im.base, '')).rejects.toThrow(/401/);
    await expect(SocketClient.connect(url, im.base, 'bad-token')).rejects.toThrow(/401/);
    await expect(SocketClient.connect(url, im.base, im.adminToken)).rejects.toThrow(/403/);
    await expect(SocketClient.connect(url, '/acme/nothing', im.adminToken)).rejects.toThrow(/404/);
  });
});

describe('IM socket heartbeats', () => {
  it('closes a socket that stops answering pings, making its user offline', async () => {
    const t = await createTestApp('sqlite', { env: { PARLEY_IM_HEARTBEAT_SECONDS: '1' } });
    try {
      const im = await createImApp(t.app);
      await createUsers(t.app, im, 'zed');
      const url = await listen(t.app);
      const socket = await SocketClient.connect(url, im.base, await userToken(t.app, im, 'zed'));
      await waitFor(() => t.app.parley.im.presence.size(), (n) => n === 1);
      // A live client answers pings and stays.
      await new Promise((r) => setTimeout(r, 1500));
      expect(t.app.parley.im.presence.size()).toBe(1);
      // A stalled client (its socket no longer read) misses the next ping and is dropped.
      (socket.ws as unknown as { _socket: { pause(): void } })._socket.pause();
      await waitFor(() => t.app.parley.im.presence.size(), (n) => n === 0, 6000);
    } finally {
      await t.close();
    }
  });
});
