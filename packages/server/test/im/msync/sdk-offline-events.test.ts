/**
 * Contact and group events for users offline at the moment, driven by the real SDKs: kept and
 * raised by the SDK on the user's next login (`onContactInvited` … `onContactDeleted`,
 * `onGroupEvent` directJoined, removeMember, destroy, requestToJoin, acceptRequest,
 * joinPublicGroupDeclined), each group's in order, once; what every member hears of others'
 * joins is not kept. Kept events are bounded per user and expire (the injected clock); a JSON
 * socket gets the same frames.
 */
import type { ImServerFrame } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, SDK_PACKAGES, type SdkClient } from '../../helpers/easemob-sdk.js';
import type { FakeClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';
import { PENDING_EVENTS_MAX, PENDING_EVENTS_TTL_MS } from '../../../src/modules/im/pending-events.js';

const CASES = ENGINES.flatMap((engine) => SDK_PACKAGES.map((sdkPackage) => [engine, sdkPackage] as const));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** A client's group events as `operation group from` lines, in the order raised. */
const groupLines = (client: SdkClient) => client.of('groupEvent').map((e: Any) => `${e.operation} ${e.id} ${e.from}`);

describe.each(CASES)('events for offline users on %s with %s', (engine, sdkPackage) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan', 'eve'], { sdkPackage });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  const offline = async (client: SdkClient, user: string) => {
    client.close();
    await waitFor(() => w.online(user), (on) => !on);
  };
  const kept = (user: string) => w.t.app.parley.storage.db.selectFrom('im_pending_events').select('id').where('username', '=', user).execute();

  it('contact events reach a user offline at the moment on their next login, once', async () => {
    const ann = await w.login('ann');
    await ann.conn.addContact('dan', 'hello from ann');
    const dan = await w.login('dan');
    expect((await waitFor(() => dan.of('contactInvited'), (e) => e.length === 1))[0]).toMatchObject({ from: 'ann', to: 'dan', status: 'hello from ann' });
    await dan.conn.acceptContactInvite('ann');
    await waitFor(() => ann.of('contactAgreed'), (e) => e.length === 1);
    await offline(ann, 'ann');
    await dan.conn.deleteContact('ann');
    const again = await w.login('ann');
    expect((await waitFor(() => again.of('contactDeleted'), (e) => e.length === 1))[0]).toMatchObject({ from: 'dan', to: 'ann' });
    await waitFor(() => kept('ann'), (rows) => rows.length === 0);
    // Handed over once: the next login gets nothing again.
    await offline(again, 'ann');
    const third = await w.login('ann');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(third.of('contactDeleted')).toEqual([]);
    expect(third.of('contactInvited')).toEqual([]);
    await Promise.all([offline(third, 'ann'), offline(dan, 'dan')]);
  });

  it("group events about a user offline at the moment reach them on their next login, each group's in order; others' joins are not kept", async () => {
    const [ann, ben] = await Promise.all([w.login('ann'), w.login('ben')]);
    // cal is offline throughout: added, removed, added to another group that is then deleted.
    const first = (await ann.conn.createGroup({ data: { groupname: 'first', desc: '', members: ['cal', 'ben'], public: true, approval: true, allowinvites: false, inviteNeedConfirm: false, maxusers: 20 } })).data.groupid as string;
    await ann.conn.removeGroupMember({ groupId: first, username: 'cal' });
    const second = (await ann.conn.createGroup({ data: { groupname: 'second', desc: '', members: ['cal'], public: false, approval: false, allowinvites: false, inviteNeedConfirm: false, maxusers: 20 } })).data.groupid as string;
    await ann.conn.destroyGroup({ groupId: second });
    // ben goes offline; eve joins (memberPresence for ben is not kept).
    await offline(ben, 'ben');
    // The owner is offline when eve and dan ask to join; dan is offline when answered, eve too.
    await offline(ann, 'ann');
    const [eve, dan] = await Promise.all([w.login('eve'), w.login('dan')]);
    await eve.conn.joinGroup({ groupId: first, message: 'eve please' });
    await dan.conn.joinGroup({ groupId: first, message: 'dan please' });
    await Promise.all([offline(eve, 'eve'), offline(dan, 'dan')]);

    const owner = await w.login('ann');
    const requests = await waitFor(() => owner.of('groupEvent').filter((e: Any) => e.operation === 'requestToJoin'), (list) => list.length === 2);
    expect(requests.map((e: Any) => [e.from, e.reason])).toEqual([
      ['eve', 'eve please'],
      ['dan', 'dan please'],
    ]);
    await owner.conn.acceptGroupJoinRequest({ groupId: first, applicant: 'eve' });
    await owner.conn.rejectGroupJoinRequest({ groupId: first, applicant: 'dan', reason: 'no room' });

    const cal = await w.login('cal');
    await waitFor(() => groupLines(cal), (lines) => lines.length >= 4);
    expect(groupLines(cal).filter((l: string) => l.includes(` ${first} `))).toEqual([`directJoined ${first} ann`, `removeMember ${first} ann`]);
    expect(groupLines(cal).filter((l: string) => l.includes(` ${second} `))).toEqual([`directJoined ${second} ann`, `destroy ${second} ann`]);

    const [eveAgain, danAgain, benAgain] = await Promise.all([w.login('eve'), w.login('dan'), w.login('ben')]);
    expect((await waitFor(() => eveAgain.of('groupEvent'), (e) => e.length >= 1))[0]).toMatchObject({ operation: 'acceptRequest', id: first, from: 'ann' });
    expect((await waitFor(() => danAgain.of('groupEvent'), (e) => e.length >= 1))[0]).toMatchObject({ operation: 'joinPublicGroupDeclined', id: first, from: 'ann' });
    await waitFor(() => kept('ben'), (rows) => rows.length === 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(groupLines(benAgain)).toEqual([]);
    expect(groupLines(cal).length).toBe(4);
  });
});

describe.each(ENGINES)('kept events: bounds and expiry on %s', (engine) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal']);
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  const clock = () => w.t.clock as FakeClock;
  const db = () => w.t.app.parley.storage.db;
  const app = () => w.t.app.parley.im.apps.requireApp(w.im.org, w.im.name);
  const kept = async (user: string) => (await db().selectFrom('im_pending_events').select('frame').where('username', '=', user).orderBy('id').execute()).map((r) => JSON.parse(r.frame) as ImServerFrame);

  it(`keeps at most ${PENDING_EVENTS_MAX} a user, drops the newest beyond, and makes room by forgetting expired ones`, async () => {
    const im = w.t.app.parley.im;
    const filler = JSON.stringify({ op: 'roster', event: 'invited', from: 'cal', to: 'ben', timestamp: clock().now() });
    const rows = Array.from({ length: PENDING_EVENTS_MAX }, (_, i) => ({ app_id: w.appId, username: 'ben', id: i + 1, frame: filler, created_at: clock().now() }));
    for (let i = 0; i < rows.length; i += 200) await db().insertInto('im_pending_events').values(rows.slice(i, i + 200)).execute();
    await im.contacts.apply(await app(), 'ann', 'ben', 'over the bound');
    expect((await kept('ben')).length).toBe(PENDING_EVENTS_MAX);
    expect((await kept('ben')).some((f) => f.op === 'roster' && f.from === 'ann')).toBe(false);

    clock().advance(PENDING_EVENTS_TTL_MS + 1);
    await im.contacts.apply(await app(), 'ann', 'ben', 'after expiry');
    expect(await kept('ben')).toEqual([expect.objectContaining({ op: 'roster', event: 'invited', from: 'ann', reason: 'after expiry' })]);
  });

  it('an event older than the time to live is never handed over; a fresh one is, over the JSON socket too', async () => {
    const im = w.t.app.parley.im;
    await im.contacts.apply(await app(), 'ann', 'cal', 'stale');
    clock().advance(PENDING_EVENTS_TTL_MS + 1);
    await im.contacts.apply(await app(), 'ben', 'cal', 'fresh');
    const json = await SocketClient.connect(w.url, w.im.base, await w.token('cal'));
    const [roster] = await json.waitFrames('roster', 1);
    expect(roster).toMatchObject({ op: 'roster', event: 'invited', from: 'ben', to: 'cal', reason: 'fresh' });
    await waitFor(() => kept('cal'), (list) => list.length === 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(json.of('roster')).toHaveLength(1);
    json.ws.close();
  });
});
