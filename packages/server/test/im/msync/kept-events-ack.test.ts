/**
 * Events kept for a user offline at the moment are forgotten only once a client acknowledged them,
 * as stored messages are: an msync client by pulling with the batch's key, the JSON socket by the
 * write being confirmed. A socket that closes after the hand-over and before that leaves them for
 * the next login; once acknowledged they are never handed over again. Real sockets, both engines.
 */
import type { ImServerFrame } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ImMessagesRepository } from '../../../src/modules/im/ports.js';
import { Command, Namespace } from '../../../src/modules/im/msync/schema.js';
import { ENGINES } from '../../helpers/engines.js';
import { SocketClient, waitFor } from '../../helpers/im.js';
import { msyncWorld, PullingClient, type MsyncWorld } from '../../helpers/msync.js';

describe.each(ENGINES)('kept events forgotten once acknowledged on %s', (engine) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal']);
  });
  afterAll(async () => w?.close());
  afterEach(() => vi.restoreAllMocks());

  const im = () => w.t.app.parley.im;
  const app = () => im().apps.requireApp(w.im.org, w.im.name);
  const kept = async (user: string) => (await w.t.app.parley.storage.db.selectFrom('im_pending_events').select('frame').where('username', '=', user).execute()).map((r) => JSON.parse(r.frame) as ImServerFrame);
  const offline = (user: string) => waitFor(() => w.online(user), (on) => !on);
  /** The hand-overs of kept events that begin from now on, to wait for. */
  const handOvers = () => {
    const started: Array<Promise<void>> = [];
    const real = im().events.handOver.bind(im().events);
    vi.spyOn(im().events, 'handOver').mockImplementation((...args) => {
      const run = real(...args);
      started.push(run);
      return run;
    });
    return async () => {
      await waitFor(() => started.length, (n) => n >= 1);
      await Promise.all(started);
    };
  };
  /** One pull of `queue` by a raw msync client; its answer. */
  const pull = (client: PullingClient, queue: { appKey: string; name: string; domain: string }, key?: string) => client.pullOnce(queue, key);

  it('msync: a connection closed before its client acknowledged leaves them for the next login; acknowledged, never again', async () => {
    await im().contacts.apply(await app(), 'ann', 'ben', 'from ann');
    expect(await kept('ben')).toHaveLength(1);
    const queue = { appKey: w.appKey, name: 'ann', domain: 'easemob.com' };

    // Handed over, pulled, never acknowledged (no pull with the key): the connection closes.
    let done = handOvers();
    const first = await PullingClient.login(w, 'ben', { pull: false, resource: 'first' });
    await done();
    const handed = await pull(first, queue);
    expect(handed.metas?.map((m) => m.ns)).toEqual([Namespace.ROSTER]);
    first.close();
    await offline('ben');
    expect(await kept('ben')).toEqual([expect.objectContaining({ op: 'roster', event: 'invited', from: 'ann', reason: 'from ann' })]);

    // The next login gets it again and acknowledges it: forgotten.
    vi.restoreAllMocks();
    done = handOvers();
    const second = await PullingClient.login(w, 'ben', { pull: false, resource: 'second' });
    await done();
    const again = await pull(second, queue);
    expect(again.metas?.map((m) => m.ns)).toEqual([Namespace.ROSTER]);
    expect((await pull(second, queue, again.nextKey)).isLast).toBe(true);
    await waitFor(() => kept('ben'), (rows) => rows.length === 0);
    second.close();
    await offline('ben');

    // Never handed over again.
    vi.restoreAllMocks();
    done = handOvers();
    const third = await PullingClient.login(w, 'ben', { pull: false, resource: 'third' });
    await done();
    const none = await pull(third, queue);
    expect(none.metas ?? []).toEqual([]);
    expect(none.isLast).toBe(true);
    expect(third.raw.of(Command.NOTICE)).toEqual([]);
    third.close();
    await offline('ben');
  });

  it('JSON socket: a socket closed after the hand-over began, before the write, leaves them for the next login; written, never again', async () => {
    await im().contacts.apply(await app(), 'ann', 'cal', 'hello cal');
    const repo = (im().events as unknown as { repo: Pick<ImMessagesRepository, 'readEvents'> }).repo;
    const read = repo.readEvents.bind(repo);
    const opened: { socket?: SocketClient } = {};
    // The hand-over has read the kept event when the socket closes.
    vi.spyOn(repo, 'readEvents').mockImplementationOnce(async (...args) => {
      const rows = await read(...args);
      await (await waitFor(() => opened.socket, (c) => c !== undefined))?.close();
      await offline('cal');
      return rows;
    });
    let done = handOvers();
    const closing = (opened.socket = await SocketClient.connect(w.url, w.im.base, await w.token('cal')));
    await done();
    expect(closing.of('roster')).toEqual([]);
    expect(await kept('cal')).toEqual([expect.objectContaining({ op: 'roster', from: 'ann', reason: 'hello cal' })]);

    vi.restoreAllMocks();
    done = handOvers();
    const next = await SocketClient.connect(w.url, w.im.base, await w.token('cal'));
    const [roster] = await next.waitFrames('roster', 1);
    expect(roster).toMatchObject({ op: 'roster', event: 'invited', from: 'ann', to: 'cal', reason: 'hello cal' });
    await done();
    await waitFor(() => kept('cal'), (rows) => rows.length === 0);
    await next.close();
    await offline('cal');

    vi.restoreAllMocks();
    done = handOvers();
    const third = await SocketClient.connect(w.url, w.im.base, await w.token('cal'));
    await done();
    // Frames arrive in order: anything handed over would be here before the answer to this ping.
    third.send({ op: 'ping', id: 'p1' });
    await third.waitFrames('pong', 1);
    expect(third.of('roster')).toEqual([]);
    await third.close();
  });
});
