/**
 * The event catalogue of post-send rules (contract 6.7b), on both engines, driven by the real
 * Easemob Web SDK (and the JSON socket and REST where those are entry points too), received by a
 * real HTTP receiver: `roster` (contact add, accept, decline, remove, block, unblock), `userStatus`
 * (login, logout, replaced by another device or a deletion), `recall` (msync, JSON socket, REST) and `read_ack` (one-to-one and
 * group). Each record arrives in Easemob's shape at a rule that lists its type, signed with that
 * rule's secret (`verifyCallback`), stamped by the injected clock; a rule that does not list it and
 * a rule created without `event_types` receive none; an operation that fails writes none; a
 * failed record is stored, listed, logged and re-sent as message records are.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dateKey } from '@parley/protocol';
import { verifyCallback } from '@parley/sdk';
import { CallbackReceiver, type ReceivedRequest } from '../helpers/callback-receiver.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertNoForeignRequests } from '../helpers/easemob-sdk.js';
import { ENGINES } from '../helpers/engines.js';
import { SocketClient, waitFor } from '../helpers/im.js';
import { msyncWorld, PASSWORD, type MsyncWorld } from '../helpers/msync.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const RULES = { ops_a: ['roster', 'recall'], ops_b: ['userStatus', 'read_ack'], plain: undefined } as const;
type RuleName = keyof typeof RULES;
const CALL_ID = /^acme#shop_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MSG_ID = /^\d{10,20}$/;
const signedFields = { appkey: 'acme#shop', securityVersion: '1.0.0', security: expect.stringMatching(/^[0-9a-f]{32}$/) };
const isMessageRecord = (b: Body) => ['chat', 'chat_offline'].includes(b.eventType) && ['chat', 'groupchat'].includes(b.chat_type);

describe.each(ENGINES)('the event catalogue of post-send rules on %s', (engine) => {
  let w: MsyncWorld;
  let receiver: CallbackReceiver;
  let clock: FakeClock;
  let groupId: string;
  const secrets = {} as Record<RuleName, string>;

  const requestsOf = (rule: RuleName) => receiver.requests.filter((r) => r.path === `/callback?rule=${rule}`);
  const bodiesOf = (rule: RuleName): Body[] => requestsOf(rule).map((r) => JSON.parse(r.body) as Body);
  /** The request a rule received whose body matches, verified with the rule's secret; its body. */
  const received = async (rule: RuleName, match: (b: Body) => boolean): Promise<Body> => {
    const request = await waitFor(() => requestsOf(rule).find((r) => match(JSON.parse(r.body) as Body)), Boolean, 15_000);
    return verified(rule, request as ReceivedRequest);
  };
  const verified = (rule: RuleName, request: ReceivedRequest): Body =>
    verifyCallback({ secret: secrets[rule], headers: request.headers, body: request.body, nowSeconds: Math.floor(clock.now() / 1000) }) as unknown as Body;
  const settle = () => w.t.app.parley.jobs.idle();
  const roster = (operation: string, from: string, to: string) => (b: Body) => b.chat_type === 'roster' && b.payload.operation === operation && b.from === `acme#shop_${from}@easemob.com` && b.to === to;

  beforeAll(async () => {
    receiver = await CallbackReceiver.start();
    // One socket per user: a second replaces the first (Easemob's `replaced`).
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan', 'eve', 'fay'], { env: { PARLEY_IM_SOCKETS_PER_USER: '1', PARLEY_CALLBACK_TIMEOUT_MS: '2000' } });
    clock = w.t.clock as FakeClock;
    expect((await w.api('PUT', '/callbacks/service', { enabled: true, store_failed: true })).status).toBe(200);
    for (const [name, eventTypes] of Object.entries(RULES) as Array<[RuleName, readonly string[] | undefined]>) {
      const created = await w.api('POST', '/callbacks/rules', { name, url: `${receiver.url}?rule=${name}`, ...(eventTypes ? { event_types: eventTypes } : {}) });
      expect(created.status).toBe(200);
      secrets[name] = created.body.data.secret;
    }
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben', 'cal', 'dan'] })).body.data.groupid;
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it('a rule takes any of the catalogue in event_types; without it, a rule keeps chat and chat_offline', async () => {
    expect((await w.api('GET', '/callbacks/rules/plain')).body.data.event_types).toEqual(['chat', 'chat_offline']);
    expect((await w.api('GET', '/callbacks/rules/ops_a')).body.data.event_types).toEqual(['roster', 'recall']);
    const all = ['chat', 'chat_offline', 'roster', 'userStatus', 'recall', 'read_ack'];
    const created = await w.api('POST', '/callbacks/rules', { name: 'every_event', url: receiver.url, event_types: all, enabled: false });
    expect(created.body.data.event_types).toEqual(all);
    expect((await w.api('PUT', '/callbacks/rules/every_event', { event_types: ['group'] })).status).toBe(400);
    expect((await w.api('DELETE', '/callbacks/rules/every_event')).status).toBe(200);
  });

  it('roster: contact add, accept, decline, remove, block and unblock from the SDK, in Easemob shape', async () => {
    const [ann, ben, cal, dan] = [await w.login('ann'), await w.login('ben'), await w.login('cal'), await w.login('dan')];
    clock.advance(1_000);
    await ann.conn.addContact('ben', 'hi, Ann here');
    expect(await received('ops_a', roster('add', 'ann', 'ben'))).toEqual({
      callId: expect.stringMatching(CALL_ID),
      eventType: 'chat',
      timestamp: clock.now(),
      chat_type: 'roster',
      from: 'acme#shop_ann@easemob.com',
      to: 'ben',
      msg_id: expect.stringMatching(MSG_ID),
      payload: { reason: 'hi, Ann here', operation: 'add' },
      ...signedFields,
    });

    clock.advance(1_000);
    await ben.conn.acceptContactInvite('ann');
    // The answering user's record and the requester's, one operation (one msg_id).
    const accept = await received('ops_a', roster('accept', 'ann', 'ben'));
    const remoteAccept = await received('ops_a', roster('remote_accept', 'ben', 'ann'));
    expect(accept).toMatchObject({ eventType: 'chat', timestamp: clock.now(), payload: { operation: 'accept' }, ...signedFields });
    expect(remoteAccept.msg_id).toBe(accept.msg_id);
    expect(remoteAccept.payload).toEqual({ operation: 'remote_accept' });

    await ben.conn.deleteContact('ann');
    expect((await received('ops_a', roster('remove', 'ben', 'ann'))).payload).toEqual({ operation: 'remove' });

    await cal.conn.addContact('dan', '');
    await received('ops_a', roster('add', 'cal', 'dan'));
    await dan.conn.declineContactInvite('cal');
    const decline = await received('ops_a', roster('decline', 'cal', 'dan'));
    expect((await received('ops_a', roster('remote_decline', 'dan', 'cal'))).msg_id).toBe(decline.msg_id);
    // Nothing was done, so nothing is called back.
    await expect(dan.conn.acceptContactInvite('cal')).rejects.toBeDefined();

    await ann.conn.addUsersToBlocklist({ name: ['ben', 'cal'] });
    const bans = [await received('ops_a', roster('ban', 'ann', 'ben')), await received('ops_a', roster('ban', 'ann', 'cal'))];
    for (const ban of bans) expect(ban.payload).toEqual({ operation: 'ban', status: { error_code: 'ok' } });
    await ann.conn.removeUserFromBlocklist({ name: 'ben' });
    expect((await received('ops_a', roster('allow', 'ann', 'ben'))).payload).toEqual({ operation: 'allow', status: { error_code: 'ok' } });

    await settle();
    const operations = bodiesOf('ops_a').filter((b) => b.chat_type === 'roster').map((b) => `${b.payload.operation} ${b.from.split('_')[1]?.split('@')[0]}>${b.to}`);
    expect(operations.sort()).toEqual(['accept ann>ben', 'add ann>ben', 'add cal>dan', 'allow ann>ben', 'ban ann>ben', 'ban ann>cal', 'decline cal>dan', 'remote_accept ben>ann', 'remote_decline dan>cal', 'remove ben>ann']);
    for (const client of [ann, ben, cal, dan]) client.close();
  });

  it("userStatus: SDK login and logout; a JSON socket replaced by another device of its user, or by the user's deletion", async () => {
    clock.advance(1_000);
    const loginAt = clock.now();
    const eve = w.sdk();
    await eve.open('eve', { pwd: PASSWORD });
    const login = await received('ops_b', (b) => b.eventType === 'userStatus' && b.reason === 'login' && b.user.startsWith('acme#shop_eve@easemob.com/'));
    expect(login).toEqual({
      callId: expect.stringMatching(CALL_ID),
      eventType: 'userStatus',
      timestamp: loginAt,
      user: expect.stringMatching(/^acme#shop_eve@easemob\.com\/.+$/),
      status: 'online',
      reason: 'login',
      os: 'other',
      ip: expect.stringContaining('127.0.0.1'),
      version: expect.any(String),
      ...signedFields,
    });
    clock.advance(1_000);
    eve.close();
    const logout = await received('ops_b', (b) => b.eventType === 'userStatus' && b.reason === 'logout' && b.user === login.user);
    expect(logout).toMatchObject({ status: 'offline', timestamp: clock.now(), os: 'other', ip: login.ip });

    const first = await SocketClient.connect(w.url, w.im.base, await w.token('fay'));
    const firstLogin = await received('ops_b', (b) => b.reason === 'login' && b.user.startsWith('acme#shop_fay@easemob.com/json_'));
    const second = await SocketClient.connect(w.url, w.im.base, await w.token('fay'));
    await waitFor(() => first.closed, Boolean);
    expect(await received('ops_b', (b) => b.user === firstLogin.user && b.status === 'offline')).toMatchObject({ reason: 'replaced', os: 'other' });
    const secondLogin = await received('ops_b', (b) => b.reason === 'login' && b.user.startsWith('acme#shop_fay@easemob.com/json_') && b.user !== firstLogin.user);
    await second.close();
    expect((await received('ops_b', (b) => b.user === secondLogin.user && b.status === 'offline')).reason).toBe('logout');

    // A deleted user's sockets are closed by the server: `replaced` too.
    expect((await w.api('POST', '/users', { username: 'gus', password: PASSWORD })).status).toBe(200);
    const gus = await SocketClient.connect(w.url, w.im.base, await w.token('gus'));
    const gusLogin = await received('ops_b', (b) => b.reason === 'login' && b.user.startsWith('acme#shop_gus@easemob.com/json_'));
    expect((await w.api('DELETE', '/users/gus')).status).toBe(200);
    await waitFor(() => gus.closed, Boolean);
    expect(await received('ops_b', (b) => b.user === gusLogin.user && b.status === 'offline')).toMatchObject({ reason: 'replaced', timestamp: clock.now() });
  });

  it('recall: from the SDK, the JSON socket and the REST API (a group message too), in Easemob shape', async () => {
    const [ann, ben] = [await w.login('ann'), await w.login('ben')];
    const sent = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'oops' });
    await waitFor(() => ben.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    clock.advance(1_000);
    await ann.conn.recallMessage({ mid: sent.serverMsgId, to: 'ben', chatType: 'singleChat' });
    expect(await received('ops_a', (b) => b.chat_type === 'recall' && b.recall_id === sent.serverMsgId)).toEqual({
      callId: expect.stringMatching(CALL_ID),
      eventType: 'chat',
      timestamp: clock.now(),
      chat_type: 'recall',
      from: 'ann',
      to: 'ben',
      msg_id: expect.stringMatching(MSG_ID),
      recall_id: sent.serverMsgId,
      payload: { ext: {}, ack_message_id: sent.serverMsgId, bodies: [] },
      ...signedFields,
    });

    const dan = await SocketClient.connect(w.url, w.im.base, await w.token('dan'));
    const fromDan = (await dan.request({ op: 'send', id: 's1', chat_type: 'chat', to: 'ben', bodies: [{ type: 'txt', msg: 'dan oops' }] })) as { msg_id: string };
    expect(await dan.request({ op: 'recall', id: 'r1', msg_id: fromDan.msg_id })).toMatchObject({ op: 'ack' });
    expect(await received('ops_a', (b) => b.recall_id === fromDan.msg_id)).toMatchObject({ chat_type: 'recall', from: 'dan', to: 'ben' });
    // A recall that removes nothing writes nothing.
    expect(await dan.request({ op: 'recall', id: 'r2', msg_id: fromDan.msg_id })).toMatchObject({ op: 'error' });
    await dan.close();

    const group = await w.api('POST', '/messages/chatgroups', { from: 'ann', to: [groupId], type: 'txt', body: { msg: 'team oops' } });
    const groupMsgId = group.body.data[groupId] as string;
    expect((await w.api('POST', '/messages/msg_recall', { msg_id: groupMsgId, to: groupId, chat_type: 'groupchat' })).status).toBe(200);
    expect(await received('ops_a', (b) => b.recall_id === groupMsgId)).toMatchObject({ chat_type: 'recall', group_id: groupId, from: 'ann', to: groupId, payload: { ack_message_id: groupMsgId } });
    expect((await w.api('POST', '/messages/msg_recall', { msg_id: groupMsgId, to: groupId, chat_type: 'groupchat' })).body.data).toMatchObject({ recalled: 'not_found msg' });

    await settle();
    expect(bodiesOf('ops_a').filter((b) => b.chat_type === 'recall').map((b) => b.recall_id).sort()).toEqual([sent.serverMsgId, fromDan.msg_id, groupMsgId].sort());
    // The delivery log finds a recall's callback by the recalled message's id.
    const log = await w.api('GET', `/callbacks/deliveries?msg_id=${groupMsgId}&rule=ops_a`);
    expect(log.body.entities).toMatchObject([{ rule: 'ops_a', eventType: 'recall', msg_id: groupMsgId, from: 'ann', to: groupId, status: 'success' }]);
    ann.close();
    ben.close();
  });

  it('read_ack: one-to-one and group read receipts from the SDK, in their two Easemob shapes', async () => {
    const [ann, ben, cal] = [await w.login('ann'), await w.login('ben'), await w.login('cal')];
    const sent = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'read me' });
    await waitFor(() => ben.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    clock.advance(1_000);
    await ben.send({ type: 'read', chatType: 'singleChat', to: 'ann', id: sent.serverMsgId });
    await waitFor(() => ann.of('read').find((r) => r.mid === sent.serverMsgId), Boolean);
    expect(await received('ops_b', (b) => b.chat_type === 'read_ack' && b.payload.ack_message_id === sent.serverMsgId)).toEqual({
      callId: expect.stringMatching(CALL_ID),
      eventType: 'chat',
      timestamp: clock.now(),
      chat_type: 'read_ack',
      from: 'ben',
      to: 'ann',
      msg_id: expect.stringMatching(MSG_ID),
      channel_channel: 'acme#shop_ann@conference.easemob.com',
      payload: { ext: {}, ack_message_id: sent.serverMsgId, bodies: [] },
      ...signedFields,
    });

    const inGroup = await ann.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'read by whom', msgConfig: { allowGroupAck: true } });
    await waitFor(() => cal.messages().some((m) => m.id === inGroup.serverMsgId), Boolean);
    clock.advance(1_000);
    await cal.send({ type: 'read', chatType: 'groupChat', to: groupId, id: inGroup.serverMsgId });
    expect(await received('ops_b', (b) => b.chat_type === 'read_ack' && b.payload.ack_message_id === inGroup.serverMsgId)).toEqual({
      callId: expect.stringMatching(CALL_ID),
      eventType: 'chat',
      timestamp: clock.now(),
      chat_type: 'read_ack',
      from: 'cal',
      to: groupId,
      msg_id: expect.stringMatching(MSG_ID),
      channel_channel: `acme#shop_${groupId}@conference.easemob.com`,
      channel_user: 'acme#shop_cal@easemob.com',
      content_type: 'chat:ack:read',
      payload: { ext: {}, ack_message_id: inGroup.serverMsgId, msg_config: { allow_group_ack: true }, type: 'read_ack' },
      writed_channel: false,
      ...signedFields,
    });

    // Delivery and conversation receipts are not read receipts.
    await ben.send({ type: 'channel', chatType: 'singleChat', to: 'ann' });
    await waitFor(() => ann.of('channel').find((r) => r.from === 'ben'), Boolean);
    await settle();
    expect(bodiesOf('ops_b').filter((b) => b.chat_type === 'read_ack').map((b) => b.payload.ack_message_id).sort()).toEqual([sent.serverMsgId, inGroup.serverMsgId].sort());
    for (const client of [ann, ben, cal]) client.close();
  });

  it('a failed catalogue record is retried, stored, listed, logged and re-sent like a message record', async () => {
    clock.advance(60_000);
    receiver.respond = (req) => (req.path === '/callback?rule=ops_a' ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
    const blocked = await w.api('POST', '/sdk/user/ann/blocks', { usernames: ['eve'] });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(200);
    await settle();
    const attempts = requestsOf('ops_a').filter((r) => (JSON.parse(r.body) as Body).to === 'eve');
    expect(attempts).toHaveLength(2);
    const record = JSON.parse(attempts[0]!.body) as Body;
    expect(attempts[1]!.body).toBe(attempts[0]!.body);

    const key = dateKey(clock.now());
    expect((await w.api('GET', '/callbacks/storage/info')).body.data).toEqual([{ date: key, size: 1, retry: 0 }]);
    const listed = await w.api('GET', `/callbacks/storage/${key}`);
    expect(listed.body.entities).toMatchObject([{ callId: record.callId, rule: 'ops_a', eventType: 'roster', msg_id: record.msg_id, last_error: 'HTTP 503', record: { chat_type: 'roster', payload: { operation: 'ban' } } }]);
    const log = await w.api('GET', '/callbacks/deliveries?user=eve&rule=ops_a');
    expect(log.body.entities.map((e: Body) => [e.eventType, e.from, e.to, e.status, e.http_status])).toEqual([
      ['roster', 'ann', 'eve', 'failure', 503],
      ['roster', 'ann', 'eve', 'failure', 503],
    ]);

    receiver.respond = () => ({ status: 200, body: 'ok' });
    expect((await w.api('POST', '/callbacks/storage/retry', { date: key })).body.data).toBe('success');
    const resent = await waitFor(() => requestsOf('ops_a').filter((r) => (JSON.parse(r.body) as Body).callId === record.callId), (list) => list.length === 3, 15_000);
    expect(verified('ops_a', resent[2]!)).toMatchObject({ callId: record.callId, chat_type: 'roster', to: 'eve' });
  });

  it('a rule not listing an event type, and a rule created without event_types, receive none of it', async () => {
    await settle();
    const a = bodiesOf('ops_a');
    const b = bodiesOf('ops_b');
    const plain = bodiesOf('plain');
    expect(a.length).toBeGreaterThan(0);
    expect(a.every((x) => x.chat_type === 'roster' || x.chat_type === 'recall')).toBe(true);
    expect(b.length).toBeGreaterThan(0);
    expect(b.every((x) => x.eventType === 'userStatus' || x.chat_type === 'read_ack')).toBe(true);
    // The messages the tests sent reached the default rule, and nothing else did.
    expect(plain.some((x) => x.eventType === 'chat')).toBe(true);
    expect(plain.every(isMessageRecord)).toBe(true);
  });
});
