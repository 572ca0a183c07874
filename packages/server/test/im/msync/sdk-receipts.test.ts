/**
 * Receipts with the real Easemob Web SDK, on both engines: a read ack reaches the sender's
 * `onReadMessage`, the SDK's automatic delivery ack (`delivery: true`) its `onDeliveredMessage`, a
 * conversation ack its `onChannelMessage`; group read acks reach the sender with the readers so far
 * and are listed by `GET /chatgroups/{id}/acks/{msgId}` (app token or a member); JSON-socket users
 * send and get the same receipts as `receipt` frames. `agora-chat` sends and gets the three receipts too.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.js';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, PASSWORD, type MsyncWorld } from '../../helpers/msync.js';

describe.each(ENGINES)('receipts with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let ann: SdkClient;
  let ben: SdkClient;
  let cat: SdkClient;
  let dan: SocketClient;
  let groupId: string;

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal']);
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben', 'cat'] })).body.data.groupid;
    [ann, ben, cat] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cat')]);
    dan = await SocketClient.connect(w.url, w.im.base, await w.token('dan'));
    for (const u of ['ann', 'ben', 'cat', 'dan']) await waitFor(() => w.online(u), (on) => on);
  });
  afterAll(async () => {
    await dan?.close();
    await w?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it("a read ack reaches the sender's onReadMessage", async () => {
    const sent = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'read me' });
    await waitFor(() => ben.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    await ben.send({ type: 'read', chatType: 'singleChat', to: 'ann', id: sent.serverMsgId });
    expect(await waitFor(() => ann.of('read').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'ben', to: 'ann', mid: sent.serverMsgId });
  });

  it("with delivery: true the receiver's SDK acknowledges each message, which reaches the sender's onDeliveredMessage", async () => {
    const eve = w.sdk({ delivery: true });
    await eve.open('eve', { pwd: PASSWORD });
    await waitFor(() => w.online('eve'), (on) => on);
    const sent = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'eve', msg: 'did you get it' });
    expect(await waitFor(() => ann.of('delivered').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'eve', to: 'ann' });
    // Without the option nobody acknowledges: ben got 'read me' and sent no delivery ack.
    expect(ann.of('delivered').every((r) => r.from === 'eve')).toBe(true);
  });

  it("a conversation ack reaches the other user's onChannelMessage", async () => {
    await ben.send({ type: 'channel', chatType: 'singleChat', to: 'ann' });
    expect(await waitFor(() => ann.of('channel').find((r) => r.from === 'ben'), Boolean)).toMatchObject({ from: 'ben', to: 'ann', chatType: 'singleChat' });
  });

  it('agora-chat: read, delivery and conversation acks reach the other agora-chat user', async () => {
    const gus = await w.login('gus', 'agora-chat');
    const hal = w.sdk({ sdkPackage: 'agora-chat', delivery: true });
    await hal.open('hal', { pwd: PASSWORD });
    const sent = await gus.send({ type: 'txt', chatType: 'singleChat', to: 'hal', msg: 'agora receipts' });
    expect(await waitFor(() => gus.of('delivered').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'hal', to: 'gus' });
    await hal.send({ type: 'read', chatType: 'singleChat', to: 'gus', id: sent.serverMsgId });
    expect(await waitFor(() => gus.of('read').find((r) => r.mid === sent.serverMsgId), Boolean)).toMatchObject({ from: 'hal', to: 'gus' });
    await hal.send({ type: 'channel', chatType: 'singleChat', to: 'gus' });
    expect(await waitFor(() => gus.of('channel').find((r) => r.from === 'hal'), Boolean)).toMatchObject({ to: 'gus', chatType: 'singleChat' });
  });

  it('group read acks reach the sender with the count, and the readers are listed to members and the app', async () => {
    const sent = await ann.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'read by whom', msgConfig: { allowGroupAck: true } });
    await waitFor(() => cat.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    await ben.send({ type: 'read', chatType: 'groupChat', to: groupId, id: sent.serverMsgId, ackContent: 'seen' });
    const first = await waitFor(() => ann.of('read').find((r) => r.mid === sent.serverMsgId), Boolean);
    expect(first).toMatchObject({ from: 'ben', to: groupId, groupReadCount: { [sent.serverMsgId]: 1 }, ackContent: 'seen' });
    await cat.send({ type: 'read', chatType: 'groupChat', to: groupId, id: sent.serverMsgId });
    await waitFor(() => ann.of('read').find((r) => r.mid === sent.serverMsgId && r.from === 'cat'), Boolean);
    expect(ann.of('read').find((r) => r.from === 'cat' && r.mid === sent.serverMsgId).groupReadCount).toEqual({ [sent.serverMsgId]: 2 });
    // A second read by ben counts once.
    await ben.send({ type: 'read', chatType: 'groupChat', to: groupId, id: sent.serverMsgId });

    const path = `/chatgroups/${groupId}/acks/${sent.serverMsgId}`;
    const byApp = await w.api('GET', path);
    expect(byApp.status).toBe(200);
    expect(byApp.body.data).toMatchObject({ ackmid: sent.serverMsgId, total: 2, userlist: ['ben', 'cat'], is_last: true });
    const page = await w.api('GET', `${path}?limit=1`);
    expect(page.body.data).toMatchObject({ total: 2, userlist: ['ben'], is_last: false, next_key: 'ben' });
    expect((await w.api('GET', `${path}?limit=1&key=ben`)).body.data).toMatchObject({ userlist: ['cat'], is_last: true });
    // The SDK's own call, with ann's user token.
    expect(await ann.conn.getGroupMsgReadUser({ groupId, msgId: sent.serverMsgId })).toMatchObject({ data: { total: 2, userlist: ['ben', 'cat'] } });
    const outsider = await call(w.t.app, await w.token('dan'), 'GET', `${w.im.base}${path}`);
    expect(outsider.status).toBe(403);
    expect(outsider.body.error).toBe('forbidden_op');
    expect((await w.api('GET', `/chatgroups/${groupId}/acks/123`)).status).toBe(404);
    // A read ack of a message that is not the group's is refused.
    await expect(ben.send({ type: 'read', chatType: 'groupChat', to: groupId, id: '123' })).rejects.toBeDefined();
  });

  it('a receipt for a user who is offline reaches them on their next login, once', async () => {
    expect(await w.online('fay')).toBe(false);
    await ben.send({ type: 'read', chatType: 'singleChat', to: 'fay', id: '7353398784950272' });
    await dan.request({ op: 'receipt', id: 'r0', kind: 'channel', to: 'fay' });
    const fay = await w.login('fay');
    expect(await waitFor(() => fay.of('read').find((r) => r.mid === '7353398784950272'), Boolean)).toMatchObject({ from: 'ben', to: 'fay' });
    expect(await waitFor(() => fay.of('channel').find((r) => r.from === 'dan'), Boolean)).toMatchObject({ to: 'fay' });
    // Forgotten once the SDK acknowledged them (its pull with the batch's key); then the socket closes.
    const kept = () => w.t.app.parley.storage.db.selectFrom('im_pending_events').select('id').where('username', '=', 'fay').execute();
    await waitFor(kept, (rows) => rows.length === 0);
    fay.close();
    await waitFor(() => w.online('fay'), (on) => !on);
    const again = await w.login('fay');
    const probe = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'fay', msg: 'probe' });
    await waitFor(() => again.messages().some((m) => m.id === probe.serverMsgId), Boolean);
    expect(again.of('read')).toHaveLength(0);
  });

  it('a JSON-socket user sends and gets the same receipts', async () => {
    const toDan = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'dan', msg: 'hi dan' });
    await dan.waitText('hi dan');
    expect(await dan.request({ op: 'receipt', id: 'r1', kind: 'read', to: 'ann', msg_id: toDan.serverMsgId })).toMatchObject({ op: 'ack', id: 'r1' });
    expect(await waitFor(() => ann.of('read').find((r) => r.mid === toDan.serverMsgId), Boolean)).toMatchObject({ from: 'dan', to: 'ann' });

    const fromDan = await dan.request({ op: 'send', id: 's1', chat_type: 'chat', to: 'ann', bodies: [{ type: 'txt', msg: 'hi ann' }] });
    const msgId = (fromDan as { msg_id: string }).msg_id;
    await ann.send({ type: 'read', chatType: 'singleChat', to: 'dan', id: msgId });
    await ann.send({ type: 'channel', chatType: 'singleChat', to: 'dan' });
    const frames = await dan.waitFrames('receipt', 2);
    expect(frames[0]).toMatchObject({ op: 'receipt', kind: 'read', from: 'ann', to: 'dan', chat_type: 'chat', msg_id: msgId });
    expect(frames[1]).toMatchObject({ op: 'receipt', kind: 'channel', from: 'ann', to: 'dan' });
    expect(await dan.request({ op: 'receipt', id: 'r2', kind: 'seen', to: 'ann' })).toMatchObject({ op: 'error', error: 'illegal_argument' });
  });
});
