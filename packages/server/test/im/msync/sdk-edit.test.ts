/**
 * Edits with the real Easemob Web SDK, on both engines: `modifyMessage` of one's own text message
 * reaches the receiver's and the sender's other device's `onModifiedMessage` and a JSON-socket
 * receiver's `edit` frame, and the stored message changes; another user's message and an unknown
 * one are refused with the SDK's errors. `agora-chat` edits and is told the same way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

describe.each(ENGINES)('edits with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let ann1: SdkClient;
  let ann2: SdkClient;
  let ben: SdkClient;
  let dan: SocketClient;
  let groupId: string;
  const create = (options: Record<string, unknown>) => (ann1.sdk.default?.message ?? ann1.sdk.message).create(options);
  const storedText = async (msgId: string) => {
    const row = await w.t.app.parley.storage.db.selectFrom('im_messages').select('payload').where('msg_id', '=', msgId as never).executeTakeFirstOrThrow();
    return (JSON.parse(row.payload) as { bodies: Array<{ msg: string }> }).bodies[0]?.msg;
  };

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'dan', 'eve', 'fay']);
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben', 'dan'] })).body.data.groupid;
    [ann1, ann2, ben] = await Promise.all([w.login('ann'), w.login('ann'), w.login('ben')]);
    dan = await SocketClient.connect(w.url, w.im.base, await w.token('dan'));
    for (const u of ['ann', 'ben', 'dan']) await waitFor(() => w.online(u), (on) => on);
  });
  afterAll(async () => {
    await dan?.close();
    await w?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it("an edit reaches the receiver and the sender's other device, and the stored message changes", async () => {
    const sent = await ann1.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'helo' });
    await waitFor(() => ben.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    await ann1.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage: create({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'hello' }) });
    const seen = await waitFor(() => ben.of('modified').find((m) => m.id === sent.serverMsgId), Boolean);
    expect(seen).toMatchObject({ id: sent.serverMsgId, type: 'txt', msg: 'hello', from: 'ann', to: 'ben', chatType: 'singleChat', modifiedInfo: { operatorId: 'ann', operationCount: 1 } });
    expect(await waitFor(() => ann2.of('modified').find((m) => m.id === sent.serverMsgId), Boolean)).toMatchObject({ msg: 'hello' });
    expect(await storedText(sent.serverMsgId)).toBe('hello');
  });

  it("agora-chat: an edit reaches the receiver and the sender's other device", async () => {
    const [eve1, eve2, fay] = await Promise.all([w.login('eve', 'agora-chat'), w.login('eve', 'agora-chat'), w.login('fay', 'agora-chat')]);
    const sent = await eve1.send({ type: 'txt', chatType: 'singleChat', to: 'fay', msg: 'agora helo' });
    await waitFor(() => fay.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    const modifiedMessage = (eve1.sdk.default?.message ?? eve1.sdk.message).create({ type: 'txt', chatType: 'singleChat', to: 'fay', msg: 'agora hello' });
    await eve1.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage });
    expect(await waitFor(() => fay.of('modified').find((m) => m.id === sent.serverMsgId), Boolean)).toMatchObject({ msg: 'agora hello', from: 'eve', to: 'fay', modifiedInfo: { operatorId: 'eve', operationCount: 1 } });
    expect(await waitFor(() => eve2.of('modified').find((m) => m.id === sent.serverMsgId), Boolean)).toMatchObject({ msg: 'agora hello' });
    expect(await storedText(sent.serverMsgId)).toBe('agora hello');
  });

  it('a group edit reaches a JSON-socket member as an edit frame', async () => {
    const sent = await ann1.send({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'teem' });
    await dan.waitText('teem');
    await ann1.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage: create({ type: 'txt', chatType: 'groupChat', to: groupId, msg: 'team' }) });
    const frame = await waitFor(() => dan.of('edit').find((f) => f.msg_id === sent.serverMsgId), Boolean);
    expect(frame).toMatchObject({ op: 'edit', from: 'ann', to: groupId, chat_type: 'groupchat', count: 1, payload: { bodies: [{ type: 'txt', msg: 'team' }] } });
  });

  it("another user's message and an unknown one are refused with the SDK's errors", async () => {
    const sent = await ann1.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'mine' });
    const errors = ann1.sdk.default?.statusCode ?? ann1.sdk.statusCode;
    await expect(ben.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage: create({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'hijack' }) })).rejects.toMatchObject({
      type: errors.PERMISSION_DENIED,
    });
    await expect(ann1.conn.modifyMessage({ messageId: '12345', modifiedMessage: create({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'x' }) })).rejects.toMatchObject({
      type: errors.MODIFY_MESSAGE_NOT_EXIST,
    });
    expect(await storedText(sent.serverMsgId)).toBe('mine');
  });
});
