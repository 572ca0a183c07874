/**
 * A group notice shares its group's queue with the group's messages, a contact event the other
 * user's queue with their one-to-one messages. The gateway holds one meta per id in a queue, and
 * the SDK drops a meta whose id it has seen: so the ids of notices and events come from the same
 * generator as message ids, and none is lost when they are made in the same millisecond (the test
 * clock does not move). Raw msync client that pulls late, both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Namespace } from '../../../src/modules/im/msync/schema.js';
import type { FakeClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { msyncWorld, PullingClient, type MsyncWorld } from '../../helpers/msync.js';

/** Messages sent around each event: enough that their ids pass whatever a separate counter would give the event. */
const AROUND = 8;

describe.each(ENGINES)('ids of event metas and messages in one queue on %s', (engine) => {
  let w: MsyncWorld;
  let ben: PullingClient;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal']);
    ben = await PullingClient.login(w, 'ben', { pull: false });
  });
  afterAll(async () => {
    ben?.close();
    await w?.close();
  });

  /** Ids issued from here on start a millisecond of their own (where a separate counter would repeat them). */
  const newMillisecond = () => (w.t.clock as FakeClock).advance(1);
  /** Every meta of `queue` (no key, then each answer's key until `isLast`), as [ns, id]. */
  const drain = async (queue: { name: string; domain: string }) => {
    const metas: Array<[number, string]> = [];
    let key: string | undefined;
    for (;;) {
      const down = await ben.pullOnce({ appKey: w.appKey, ...queue }, key);
      for (const meta of down.metas ?? []) metas.push([meta.ns ?? 0, String(meta.id)]);
      if (down.isLast) return metas;
      key = String(down.nextKey);
    }
  };
  const sendAll = async (path: string, to: string, n: number, from = 'ann') => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await w.api('POST', path, { from, to: [to], type: 'txt', body: { msg: `m${i}` } })).body.data[to] as string);
    return ids;
  };

  it('a group notice held with the group messages after it: every one reaches the client, each with its own id', async () => {
    newMillisecond();
    const groupId = (await w.api('POST', '/chatgroups', { groupname: 'ids', public: true, owner: 'ann', members: ['ben'] })).body.data.groupid as string;
    const after = await sendAll('/messages/chatgroups', groupId, AROUND);
    const metas = await drain({ name: groupId, domain: 'conference.easemob.com' });
    expect(metas.filter(([ns]) => ns === Namespace.MUC)).toHaveLength(1);
    expect(metas.filter(([ns]) => ns === Namespace.CHAT).map(([, id]) => id)).toEqual(after);
    expect(new Set(metas.map(([, id]) => id)).size).toBe(metas.length);
  });

  it('a contact event between one-to-one messages of the same user: every one reaches the client, each with its own id', async () => {
    newMillisecond();
    const before = await sendAll('/messages/users', 'ben', AROUND);
    const app = await w.t.app.parley.im.apps.requireApp(w.im.org, w.im.name);
    await w.t.app.parley.im.contacts.apply(app, 'ann', 'ben', 'hello');
    const after = await sendAll('/messages/users', 'ben', AROUND);
    const metas = await drain({ name: 'ann', domain: 'easemob.com' });
    expect(metas.filter(([ns]) => ns === Namespace.ROSTER)).toHaveLength(1);
    expect(metas.filter(([ns]) => ns === Namespace.CHAT).map(([, id]) => id)).toEqual([...before, ...after]);
    expect(new Set(metas.map(([, id]) => id)).size).toBe(metas.length);
  });
});
