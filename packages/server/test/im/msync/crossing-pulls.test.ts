/**
 * The SDK can have two pulls of one queue under way (it pulls the head of its queue list again
 * when another queue's pull ends). Through the gateway, both pulls then end with the keys they
 * carry, each batch is acknowledged once, and nothing is left to give back to the store; before,
 * the two handed the same batch back and forth forever. Raw msync client, both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, PullingClient, type MsyncWorld } from '../../helpers/msync.js';

describe.each(ENGINES)('two crossing pulls of one queue through the gateway on %s', (engine) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben']);
  });
  afterAll(async () => w?.close());

  it('both pulls end, and every message is acknowledged once', async () => {
    const ben = await PullingClient.login(w, 'ben', { pull: false });
    await waitFor(() => w.online('ben'), Boolean);
    const send = async (msg: string) => (await w.api('POST', '/messages/users', { from: 'ann', to: ['ben'], type: 'txt', body: { msg } })).body.data.ben as string;
    const queue = { appKey: w.appKey, name: 'ann', domain: 'easemob.com' };
    const first = await send('one');
    const a = await ben.pullOnce(queue);
    expect(a.metas?.map((m) => String(m.id))).toEqual([first]);
    const second = await send('two');
    const b = await ben.pullOnce(queue);
    expect(b.metas?.map((m) => String(m.id))).toEqual([first, second]);

    const aNext = await ben.pullOnce(queue, String(a.nextKey));
    expect(aNext.isLast).toBe(true);
    expect(aNext.metas ?? []).toEqual([]);
    const bNext = await ben.pullOnce(queue, String(b.nextKey));
    expect(bNext.isLast).toBe(true);

    ben.close();
    await waitFor(() => w.online('ben'), (on) => !on);
    // Acknowledged, so nothing was given back to the store for ben's next connection.
    const kept = await w.t.app.parley.storage.db.selectFrom('im_offline').select('msg_id').where('username', '=', 'ben').where('status', '=', 'undelivered').execute();
    expect(kept).toEqual([]);
  });
});
