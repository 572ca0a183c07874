/**
 * History roaming with the real Easemob Web SDK (`getHistoryMessages`) on both engines: one-to-one
 * pages both ways of the pair in either direction, paged with the SDK's cursor (with `easemob-websdk`
 * and with `agora-chat`); a group's history
 * for its members only; the SDK's msgTypes, time and sender filters; a cursor that does not decode
 * and another user's path refused in the IM envelope; messages removed from history leave the
 * offline store too; nothing older than PARLEY_IM_HISTORY_DAYS is answered.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeClock } from '../../helpers/clock.js';
import { call } from '../../helpers/app.js';
import { assertNoForeignRequests, SDK_PACKAGES, type SdkClient, type SdkPackage } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

const DAY = 24 * 3_600_000;

describe.each(ENGINES)('history roaming with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  /** Ann on each SDK package. */
  const anns = {} as Record<SdkPackage, SdkClient>;
  let ann: SdkClient;
  let cat: SdkClient;
  let groupId: string;
  /** msg_ids of the ann–ben conversation, oldest first, and their texts. */
  const pair: Array<{ id: string; msg: string; from: string }> = [];
  let imgId: string;
  const clock = () => w.t.clock as FakeClock;

  async function rest(from: string, to: string, body: Record<string, unknown>, target: 'users' | 'chatgroups' = 'users'): Promise<string> {
    const res = await w.api('POST', `/messages/${target}`, { from, to: [to], type: body.type, body: { ...body, type: undefined } });
    expect(res.status).toBe(200);
    clock().advance(1000);
    return String(res.body.data[to]);
  }
  const history = (client: SdkClient, options: Record<string, unknown>) => client.conn.getHistoryMessages(options);

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat']);
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben'] })).body.data.groupid;
    for (let i = 0; i < 25; i++) {
      const from = i % 2 === 0 ? 'ann' : 'ben';
      const msg = `m${i}`;
      pair.push({ id: await rest(from, from === 'ann' ? 'ben' : 'ann', { type: 'txt', msg }), msg, from });
      if (i === 10) await rest('ann', 'cat', { type: 'txt', msg: 'not for ben' });
    }
    imgId = await rest('ben', 'ann', { type: 'img', url: 'https://cdn.example/a.png', filename: 'a.png' });
    pair.push({ id: imgId, msg: '', from: 'ben' });
    for (let i = 0; i < 3; i++) await rest(i === 1 ? 'ben' : 'ann', groupId, { type: 'txt', msg: `g${i}` }, 'chatgroups');
    [ann, anns['agora-chat'], cat] = await Promise.all([w.login('ann'), w.login('ann', 'agora-chat'), w.login('cat')]);
    anns['easemob-websdk'] = ann;
    await waitFor(() => w.online('ann'), (on) => on);
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  it.each(SDK_PACKAGES)('%s pages a one-to-one conversation newest first with the SDK cursor, both senders, nobody else', async (sdkPackage) => {
    const ann = anns[sdkPackage];
    const first = await history(ann, { targetId: 'ben', chatType: 'singleChat', pageSize: 20 });
    expect(first.isLast).toBe(false);
    const newest = [...pair].reverse();
    expect(first.messages.map((m: { id: string }) => m.id)).toEqual(newest.slice(0, 20).map((p) => p.id));
    expect(first.messages[0]).toMatchObject({ id: imgId, type: 'img', from: 'ben', to: 'ann', chatType: 'singleChat' });
    expect(first.messages[1]).toMatchObject({ type: 'txt', msg: 'm24', from: 'ann', to: 'ben' });
    const second = await history(ann, { targetId: 'ben', chatType: 'singleChat', pageSize: 20, cursor: first.cursor });
    expect(second.isLast).toBe(true);
    expect(second.messages.map((m: { id: string }) => m.id)).toEqual(newest.slice(20).map((p) => p.id));
    expect(second.messages.some((m: { msg?: string }) => m.msg === 'not for ben')).toBe(false);
  });

  it.each(SDK_PACKAGES)('%s pages oldest first with searchDirection "down"', async (sdkPackage) => {
    const ann = anns[sdkPackage];
    const page = await history(ann, { targetId: 'ben', chatType: 'singleChat', pageSize: 5, searchDirection: 'down' });
    expect(page.messages.map((m: { msg: string }) => m.msg)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    const next = await history(ann, { targetId: 'ben', chatType: 'singleChat', pageSize: 5, searchDirection: 'down', cursor: page.cursor });
    expect(next.messages.map((m: { msg: string }) => m.msg)).toEqual(['m5', 'm6', 'm7', 'm8', 'm9']);
  });

  it('filters by msgTypes and by time', async () => {
    const images = await history(ann, { targetId: 'ben', chatType: 'singleChat', pageSize: 20, searchOptions: { msgTypes: ['img'] } });
    expect(images.messages.map((m: { id: string }) => m.id)).toEqual([imgId]);
    const rows = await w.t.app.parley.storage.db.selectFrom('im_messages').select(['msg_id', 'timestamp']).where('msg_id', 'in', [pair[3]!.id, pair[5]!.id] as never[]).orderBy('msg_id').execute();
    const window = await history(ann, {
      targetId: 'ben',
      chatType: 'singleChat',
      pageSize: 20,
      searchDirection: 'down',
      searchOptions: { startTime: Number(rows[0]!.timestamp), endTime: Number(rows[1]!.timestamp) },
    });
    expect(window.messages.map((m: { msg: string }) => m.msg)).toEqual(['m3', 'm4', 'm5']);
  });

  it('answers a group’s history to its members, with the sender filter; a non-member is refused', async () => {
    const page = await history(ann, { targetId: groupId, chatType: 'groupChat', pageSize: 20 });
    expect(page.messages.map((m: { msg: string }) => m.msg)).toEqual(['g2', 'g1', 'g0']);
    expect(page.messages[0]).toMatchObject({ chatType: 'groupChat', to: groupId, from: 'ann' });
    const fromBen = await history(ann, { targetId: groupId, chatType: 'groupChat', pageSize: 20, searchOptions: { from: 'ben' } });
    expect(fromBen.messages.map((m: { msg: string }) => m.msg)).toEqual(['g1']);
    await expect(history(cat, { targetId: groupId, chatType: 'groupChat', pageSize: 20 })).rejects.toBeTruthy();
    const raw = await call(w.t.app, await w.token('cat'), 'POST', `${w.im.base}/users/cat/messageroaming`, { queue: `${groupId}@conference.easemob.com`, start: -1, pull_number: 20 });
    expect(raw.status).toBe(403);
    expect(raw.body).toMatchObject({ error: 'forbidden_op' });
  });

  it('refuses a cursor that does not decode, and another user’s path, in the IM envelope', async () => {
    await expect(history(ann, { targetId: 'ben', chatType: 'singleChat', cursor: 'not-a-cursor' })).rejects.toBeTruthy();
    const annToken = await w.token('ann');
    const bad = await call(w.t.app, annToken, 'POST', `${w.im.base}/users/ann/messageroaming`, { queue: 'ben@easemob.com', start: 'x1', pull_number: 20 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'illegal_argument', exception: 'IllegalArgumentException' });
    expect(bad.body.error_description).toContain('start');
    const foreign = await call(w.t.app, annToken, 'POST', `${w.im.base}/users/ben/messageroaming`, { queue: 'ann@easemob.com', start: -1 });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ error: 'forbidden_op' });
    // The app token may read any user's conversations.
    const asAdmin = await w.api('POST', '/users/ben/messageroaming', { queue: 'ann@easemob.com', start: -1, pull_number: 1 });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.data).toMatchObject({ is_last: false, next_key: imgId, msgs: [{ msg: expect.any(String) }] });
  });

  it('a message removed from history is gone from pages and from the offline store', async () => {
    const removed = pair.find((p) => p.msg === 'm24')!.id;
    const offline = async () => (await w.t.app.parley.storage.db.selectFrom('im_offline').select('msg_id').where('msg_id', '=', removed as never).execute()).length;
    expect(await offline()).toBeGreaterThan(0);
    expect(await w.t.app.parley.im.history.remove(w.appId, [removed])).toBe(1);
    expect(await offline()).toBe(0);
    const page = await history(ann, { targetId: 'ben', chatType: 'singleChat', pageSize: 3 });
    expect(page.messages.map((m: { id: string }) => m.id)).not.toContain(removed);
  });

  it('answers nothing older than PARLEY_IM_HISTORY_DAYS', async () => {
    const within = await call(w.t.app, await w.token('ann'), 'POST', `${w.im.base}/users/ann/messageroaming`, { queue: 'ben@easemob.com', start: -1, pull_number: 1 });
    expect(within.body.data.msgs).toHaveLength(1);
    clock().advance(181 * DAY);
    // A fresh token: the earlier ones expired with the days that passed.
    const old = await call(w.t.app, await w.token('ann'), 'POST', `${w.im.base}/users/ann/messageroaming`, { queue: 'ben@easemob.com', start: -1, pull_number: 20 });
    expect(old.status).toBe(200);
    expect(old.body.data).toEqual({ msgs: [], is_last: true, next_key: '' });
  });
});
