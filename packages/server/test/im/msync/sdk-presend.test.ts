/**
 * The pre-send callback through the msync gateway with the real Easemob Web SDK, on both engines
 * (contract 6.5): a refusal makes the SDK's send promise reject with its own
 * MESSAGE_EXTERNAL_LOGIC_BLOCKED error carrying the app's code, and the message reaches nobody;
 * a rewrite reaches the receiver as rewritten. An edit (`modifyMessage`) is asked about the same
 * way: refused with the same error, or delivered rewritten.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CallbackReceiver } from '../../helpers/callback-receiver.js';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

/** The SDK's MESSAGE_EXTERNAL_LOGIC_BLOCKED. */
const EXTERNAL_LOGIC_BLOCKED = 502;

describe.each(ENGINES)('pre-send callback with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let presend: CallbackReceiver;
  let ann: SdkClient;
  let ben: SdkClient;

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben']);
    presend = await CallbackReceiver.start('/presend');
    expect((await w.api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url, message_types: ['txt'], timeout_ms: 5_000 })).status).toBe(200);
    presend.respond = (req) => {
      const body = JSON.parse(req.body) as { payload: { bodies: Array<{ msg?: string }> } };
      const text = body.payload.bodies[0]?.msg ?? '';
      if (text.includes('spam')) return { status: 200, body: JSON.stringify({ valid: false, code: 'no spam here' }) };
      if (text.includes('darn')) return { status: 200, body: JSON.stringify({ valid: true, payload: { bodies: [{ type: 'txt', msg: text.replace('darn', '****') }] } }) };
      return { status: 200, body: '{"valid":true}' };
    };
    await w.t.app.parley.outbound.warmUp?.();
    [ann, ben] = await Promise.all([w.login('ann'), w.login('ben')]);
    for (const u of ['ann', 'ben']) await waitFor(() => w.online(u), (on) => on);
  });
  afterAll(async () => {
    await w?.close();
    await presend?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it('a refusal rejects the send with MESSAGE_EXTERNAL_LOGIC_BLOCKED and the app code; nobody gets it', async () => {
    const before = ben.messages().length;
    await expect(ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'buy spam' })).rejects.toMatchObject({ type: EXTERNAL_LOGIC_BLOCKED, message: 'no spam here' });
    const probe = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'clean' });
    await waitFor(() => ben.messages().some((m) => m.id === probe.serverMsgId), Boolean);
    expect(ben.messages().slice(before).map((m) => m.msg)).toEqual(['clean']);
    expect(presend.bodies().map((b) => b.from)).toEqual(['ann', 'ann']);
  });

  it('a rewrite reaches the receiver rewritten', async () => {
    const sent = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'oh darn it' });
    const got = await waitFor(() => ben.messages().find((m) => m.id === sent.serverMsgId), Boolean);
    expect((got as { msg?: string }).msg).toBe('oh **** it');
  });

  it('an edit refused by the rule rejects modifyMessage with MESSAGE_EXTERNAL_LOGIC_BLOCKED; a rewritten edit reaches the receiver rewritten', async () => {
    const create = (options: Record<string, unknown>) => (ann.sdk.default?.message ?? ann.sdk.message).create(options);
    const sent = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'first' });
    await waitFor(() => ben.messages().some((m) => m.id === sent.serverMsgId), Boolean);
    const refused = ann.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage: create({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'edited spam' }) });
    await expect(refused).rejects.toMatchObject({ type: EXTERNAL_LOGIC_BLOCKED, message: 'no spam here' });
    await ann.conn.modifyMessage({ messageId: sent.serverMsgId, modifiedMessage: create({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'darn edit' }) });
    const seen = await waitFor(() => ben.of('modified').find((m) => m.id === sent.serverMsgId), Boolean);
    expect(seen).toMatchObject({ msg: '**** edit', modifiedInfo: { operationCount: 1 } });
    expect(ben.of('modified').filter((m) => m.id === sent.serverMsgId)).toHaveLength(1);
  });
});
