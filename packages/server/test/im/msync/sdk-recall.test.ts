/**
 * Recall with the real Easemob Web SDK, on both engines: a user's recall reaches the receiver's
 * and the user's other device's `onRecallMessage` (never the recalling device), removes the message
 * and its offline rows (an offline receiver never gets it); another user's message, a message past
 * PARLEY_IM_RECALL_SECONDS (the injected clock) and an unknown one are refused with the SDK's
 * errors; the app admin's REST recall works at any time and reaches the SDK; JSON-socket users
 * recall and are told too; a group recall reaches every member. `agora-chat` recalls, is told and is
 * refused the same way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import type { FakeClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

const WINDOW_SECONDS = 30;

describe.each(ENGINES)('recall with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let ann1: SdkClient;
  let ann2: SdkClient;
  let ben: SdkClient;
  let dan: SocketClient;
  let groupId: string;
  const db = () => w.t.app.parley.storage.db;
  const messageRows = async (msgId: string) =>
    Number((await db().selectFrom('im_messages').select((eb) => eb.fn.countAll().as('n')).where('msg_id', '=', msgId as never).executeTakeFirstOrThrow()).n);
  const offlineRows = async (msgId: string) =>
    Number((await db().selectFrom('im_offline').select((eb) => eb.fn.countAll().as('n')).where('msg_id', '=', msgId as never).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat', 'dan', 'eve', 'fay', 'gus'], { env: { PARLEY_IM_RECALL_SECONDS: String(WINDOW_SECONDS) } });
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben', 'cat', 'dan'] })).body.data.groupid;
    [ann1, ann2, ben] = await Promise.all([w.login('ann'), w.login('ann'), w.login('ben')]);
    dan = await SocketClient.connect(w.url, w.im.base, await w.token('dan'));
    for (const u of ['ann', 'ben', 'dan']) await waitFor(() => w.online(u), (on) => on);
  });
  afterAll(async () => {
    await dan?.close();
    await w?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it("a recall reaches the receiver and the sender's other device, and the message is gone", async () => {
    const sent = await ann1.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'oops' });
    await waitFor(() => ben.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    await ann1.conn.recallMessage({ mid: sent.serverMsgId, to: 'ben', chatType: 'singleChat', ext: 'typo' });
    expect(await waitFor(() => ben.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'ann', to: 'ben', ext: 'typo' });
    expect(await waitFor(() => ann2.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'ann', to: 'ben' });
    expect(await messageRows(sent.serverMsgId)).toBe(0);
    // The recalling device is not told; a probe shows it had the chance.
    const probe = await ben.send({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'probe' });
    await waitFor(() => ann1.messages().some((m) => m.id === probe.serverMsgId), Boolean);
    expect(ann1.of('recall')).toHaveLength(0);
  });

  it("agora-chat: a recall reaches the receiver and the sender's other device; another user's message is refused", async () => {
    const [fay1, fay2, gus] = await Promise.all([w.login('fay', 'agora-chat'), w.login('fay', 'agora-chat'), w.login('gus', 'agora-chat')]);
    const sent = await fay1.send({ type: 'txt', chatType: 'singleChat', to: 'gus', msg: 'agora oops' });
    await waitFor(() => gus.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    const errors = gus.sdk.default?.statusCode ?? gus.sdk.statusCode;
    await expect(gus.conn.recallMessage({ mid: sent.serverMsgId, to: 'fay', chatType: 'singleChat' })).rejects.toMatchObject({ type: errors.PERMISSION_DENIED });
    await fay1.conn.recallMessage({ mid: sent.serverMsgId, to: 'gus', chatType: 'singleChat', ext: 'typo' });
    expect(await waitFor(() => gus.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'fay', to: 'gus', ext: 'typo' });
    expect(await waitFor(() => fay2.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'fay', to: 'gus' });
    expect(await messageRows(sent.serverMsgId)).toBe(0);
  });

  it('a message recalled while its receiver is offline never reaches them', async () => {
    const sent = await ann1.send({ type: 'txt', chatType: 'singleChat', to: 'cat', msg: 'never mind' });
    const kept = await ann1.send({ type: 'txt', chatType: 'singleChat', to: 'cat', msg: 'this one stays' });
    await w.t.app.parley.jobs.idle('im.fanout');
    expect(await offlineRows(sent.serverMsgId)).toBe(1);
    await ann1.conn.recallMessage({ mid: sent.serverMsgId, to: 'cat', chatType: 'singleChat' });
    expect(await offlineRows(sent.serverMsgId)).toBe(0);
    const cat = await w.login('cat');
    await waitFor(() => cat.messages().some((m) => m.id === kept.serverMsgId), Boolean);
    expect(cat.messages().map((m) => m.id)).toEqual([kept.serverMsgId]);
    cat.close();
  });

  it('a receiver who had the message and is offline gets the recall on their next login', async () => {
    const eve = await w.login('eve');
    const sent = await ann1.send({ type: 'txt', chatType: 'singleChat', to: 'eve', msg: 'seen, then recalled' });
    await waitFor(() => eve.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    eve.close();
    await waitFor(() => w.online('eve'), (on) => !on);
    await ann1.conn.recallMessage({ mid: sent.serverMsgId, to: 'eve', chatType: 'singleChat', ext: 'later' });
    const again = await w.login('eve');
    expect(await waitFor(() => again.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'ann', to: 'eve', ext: 'later' });
    // Handed over, then forgotten.
    await waitFor(() => db().selectFrom('im_pending_events').select('id').where('username', '=', 'eve').execute(), (rows) => rows.length === 0);
    again.close();
  });

  it("another user's message, an unknown one and one past the window are refused with the SDK's errors", async () => {
    const sent = await ann1.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'mine' });
    const errors = ann1.sdk.default?.statusCode ?? ann1.sdk.statusCode;
    await expect(ben.conn.recallMessage({ mid: sent.serverMsgId, to: 'ann', chatType: 'singleChat' })).rejects.toMatchObject({ type: errors.PERMISSION_DENIED });
    await expect(ann1.conn.recallMessage({ mid: '12345', to: 'ben', chatType: 'singleChat' })).rejects.toMatchObject({ type: errors.MODIFY_MESSAGE_NOT_EXIST });
    (w.t.clock as FakeClock).advance((WINDOW_SECONDS + 1) * 1000);
    await expect(ann1.conn.recallMessage({ mid: sent.serverMsgId, to: 'ben', chatType: 'singleChat' })).rejects.toMatchObject({ type: errors.MESSAGE_RECALL_TIME_LIMIT });
    expect(await messageRows(sent.serverMsgId)).toBe(1);

    // The app admin may recall it at any time; the SDK's receivers are told.
    const byAdmin = await w.api('POST', '/messages/msg_recall', { msg_id: sent.serverMsgId, to: 'ben', chat_type: 'chat' });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.data).toEqual({ msg_id: sent.serverMsgId, recalled: 'yes', from: 'admin', to: 'ben', chattype: 'chat' });
    expect(await waitFor(() => ben.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'admin' });
    expect(await waitFor(() => ann1.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'admin' });
    expect(await messageRows(sent.serverMsgId)).toBe(0);
    const again = await w.api('POST', '/messages/msg_recall', { msg_id: sent.serverMsgId, to: 'ben', chat_type: 'chat' });
    expect(again.body.data).toMatchObject({ recalled: 'not_found msg' });
    expect((await w.api('POST', '/messages/msg_recall', { msg_id: 'x', to: 'ben', chat_type: 'chat' })).status).toBe(400);
  });

  it('a group recall reaches every member, the JSON socket included; a JSON-socket user recalls their own', async () => {
    const sent = await ann1.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'team oops' });
    await dan.waitText('team oops');
    await ann1.conn.recallMessage({ mid: sent.serverMsgId, to: groupId, chatType: 'groupChat' });
    expect(await waitFor(() => ben.of('recall').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'ann', to: groupId });
    const frame = await waitFor(() => dan.of('recall').find((f) => f.msg_id === sent.serverMsgId), Boolean);
    expect(frame).toMatchObject({ op: 'recall', from: 'ann', to: groupId, chat_type: 'groupchat', group_id: groupId });
    expect(frame).not.toHaveProperty('device');

    const fromDan = await dan.request({ op: 'send', id: 's1', chat_type: 'chat', to: 'ben', bodies: [{ type: 'txt', msg: 'dan oops' }] });
    const msgId = (fromDan as { msg_id: string }).msg_id;
    await waitFor(() => ben.messages().some((m) => m.id === msgId), Boolean);
    expect(await dan.request({ op: 'recall', id: 'r1', msg_id: msgId, ext: 'sorry' })).toMatchObject({ op: 'ack', id: 'r1', msg_id: msgId });
    expect(await waitFor(() => ben.of('recall').find((r) => r.mid === msgId), Boolean)).toMatchObject({ from: 'dan', ext: 'sorry' });
    expect(await dan.request({ op: 'recall', id: 'r2', msg_id: msgId })).toMatchObject({ op: 'error', error: 'service_resource_not_found' });
  });
});
