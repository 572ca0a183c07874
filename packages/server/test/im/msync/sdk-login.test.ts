/**
 * Logging in with the real Easemob Web SDK through the msync gateway: by password and by a
 * REST-issued token; a bad, expired or foreign token and an unknown user or app are refused with
 * the status the SDK turns into its matching error; one user holds several resources at once;
 * logout ends the session; the compression the SDK offers is declined, so it sends plain frames;
 * the SDK never reaches a host other than the server under test.
 */
import protobuf from 'protobufjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrame, decodeProvision } from '../../../src/modules/im/msync/codec.js';
import { Command } from '../../../src/modules/im/msync/schema.js';
import type { FakeClock } from '../../helpers/clock.js';
import { assertNoForeignRequests } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, PASSWORD, type MsyncWorld } from '../../helpers/msync.js';

/** The MSync fields that would say a frame is compressed or encrypted (msync-notes: 4, 5, 11). */
const Transform = new protobuf.Type('Transform')
  .add(new protobuf.Field('compressAlgorimth', 4, 'int32'))
  .add(new protobuf.Field('crypto', 5, 'int32'))
  .add(new protobuf.Field('encryptType', 11, 'int32', 'repeated'));

describe.each(ENGINES)('msync login with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal']);
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  it('logs in by password and by a REST-issued token, and both are online', async () => {
    const ann = w.sdk();
    await ann.open('ann', { pwd: PASSWORD });
    const ben = w.sdk();
    await ben.open('ben', { accessToken: await w.token('ben') });
    expect(ann.of('connected')).toHaveLength(1);
    expect(ben.of('connected')).toHaveLength(1);
    // Online once the stored messages were handed over (the drain after the provision).
    await waitFor(() => w.online('ann'), (on) => on);
    await waitFor(() => w.online('ben'), (on) => on);
    ann.close();
    ben.close();
    await waitFor(() => w.online('ann'), (on) => !on);
    await waitFor(() => w.online('ben'), (on) => !on);
  });

  it('declines the compression the SDK offers, and the SDK then sends every frame plain and unencrypted', async () => {
    const ann = await w.login('ann');
    await ann.send({ type: 'txt', chatType: 'singleChat', to: 'cal', msg: 'plain' });
    const [provision, ...rest] = ann.socket().sentFrames.map(decodeFrame);
    expect(provision?.command).toBe(Command.PROVISION);
    expect((decodeProvision(provision?.payload) as { protocolCompressType?: number[] }).protocolCompressType?.length).toBeGreaterThan(0);
    const answer = decodeProvision(decodeFrame(ann.socket().receivedFrames[0]!).payload);
    expect(answer).toEqual({ status: {}, resource: expect.any(String) });
    expect(rest.length).toBeGreaterThan(1);
    for (const bytes of ann.socket().sentFrames) {
      const t = Transform.toObject(Transform.decode(bytes), { defaults: false }) as { compressAlgorimth?: number; crypto?: number; encryptType?: number[] };
      expect(t.compressAlgorimth ?? 0).toBe(0);
      expect(t.crypto).toBeUndefined();
      expect((t.encryptType ?? []).every((e) => e === 0)).toBe(true);
    }
    ann.close();
  });

  it('refuses a wrong password at the token endpoint, before any socket (WEBIM_CONNCTION_OPEN_ERROR)', async () => {
    await expect(w.sdk().open('ann', { pwd: 'wrong-password' })).rejects.toMatchObject({ type: 1 });
  });

  it('refuses an unknown token with WEBIM_CONNCTION_AUTH_ERROR', async () => {
    await expect(w.sdk().open('ann', { accessToken: 'YWMtnot-a-token' })).rejects.toMatchObject({ type: 2 });
    expect(await w.online('ann')).toBe(false);
  });

  it("refuses another user's token (TOKEN_NOT_ASSIGN) and an unknown user (USER_NOT_FOUND)", async () => {
    const bens = await w.token('ben');
    await expect(w.sdk().open('ann', { accessToken: bens })).rejects.toMatchObject({ type: 28 });
    await expect(w.sdk().open('nobody', { accessToken: bens })).rejects.toMatchObject({ type: 204 });
  });

  it('refuses a provision for an unknown app with WEBIM_CONNCTION_AUTH_ERROR', async () => {
    const token = await w.token('ann');
    await expect(w.sdk({ appKey: 'nope#none' }).open('ann', { accessToken: token })).rejects.toMatchObject({ type: 2 });
  });

  it('one user holds several resources at once, and each gets the message', async () => {
    const one = await w.login('ben');
    const two = await w.login('ben');
    expect(w.t.app.parley.im.presence.connections(w.appId, 'ben')).toBe(2);
    await waitFor(() => w.online('ben'), (on) => on);
    const ann = await w.login('ann');
    const sent = await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'to both' });
    for (const ben of [one, two]) {
      await waitFor(() => ben.messages().length, (n) => n === 1);
      expect(ben.messages()[0]).toMatchObject({ id: sent.serverMsgId, msg: 'to both', from: 'ann' });
    }
    for (const c of [one, two, ann]) c.close();
    await waitFor(() => w.t.app.parley.im.presence.connections(w.appId, 'ben'), (n) => n === 0);
  });

  it('logout ends the session: the user goes offline', async () => {
    const ann = await w.login('ann');
    await waitFor(() => w.online('ann'), (on) => on);
    ann.close();
    await waitFor(() => w.t.app.parley.im.presence.connections(w.appId, 'ann'), (n) => n === 0);
    expect(await w.online('ann')).toBe(false);
  });
});

describe('msync login with an expired token', () => {
  it('refuses it with WEBIM_TOKEN_EXPIRED', async () => {
    const w = await msyncWorld('sqlite', ['ann']);
    try {
      const token = await w.token('ann');
      (w.t.clock as FakeClock).advance(8 * 24 * 3600 * 1000);
      await expect(w.sdk().open('ann', { accessToken: token })).rejects.toMatchObject({ type: 56 });
      assertNoForeignRequests();
    } finally {
      await w.close();
    }
  });
});
