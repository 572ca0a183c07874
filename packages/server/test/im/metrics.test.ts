/**
 * IM metrics on /metrics: messages by chat type and body type, offline messages stored and
 * delivered, fan-out lag, open sockets; each counted once, where it happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

/** The value of one series in Prometheus text, 0 when it is absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe.each(ENGINES)('IM metrics on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  let appId: string;
  const api = (method: 'GET' | 'POST', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);
  const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const settle = () => t.app.parley.jobs.idle('im.fanout');

  beforeAll(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
    url = await listen(t.app);
    await createUsers(t.app, im, 'alice', 'bob', 'carol');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts sends by type, offline rows stored and drained, fan-out lag and open sockets', async () => {
    const before = await metrics();
    expect(sample(before, 'parley_im_messages_total{chat_type="chat",type="txt"}')).toBe(0);
    expect(sample(before, 'parley_im_sockets_open')).toBe(0);

    // Two receivers of one text (two messages), and an image: bob and carol are offline.
    const txt = await api('POST', '/messages/users', { from: 'alice', to: ['bob', 'carol'], type: 'txt', body: { msg: 'hi' } });
    expect(txt.status).toBe(200);
    const img = await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type: 'img', body: { url: 'https://example.com/a.png', filename: 'a.png' } });
    expect(img.status).toBe(200);
    await settle();

    const afterSend = await metrics();
    expect(sample(afterSend, 'parley_im_messages_total{chat_type="chat",type="txt"}')).toBe(2);
    expect(sample(afterSend, 'parley_im_messages_total{chat_type="chat",type="img"}')).toBe(1);
    expect(sample(afterSend, 'parley_im_messages_total{chat_type="groupchat",type="txt"}')).toBe(0);
    expect(sample(afterSend, 'parley_im_offline_stored_total')).toBe(3);
    expect(sample(afterSend, 'parley_im_offline_delivered_total')).toBe(0);
    // One fan-out job per commit: the two sends ran one after the other, so two jobs.
    expect(sample(afterSend, 'parley_im_fanout_lag_seconds_count')).toBe(2);

    // bob connects: his two stored messages are drained to the socket.
    const bob = await SocketClient.connect(url, im.base, await userToken(t.app, im, 'bob'));
    await waitFor(() => t.app.parley.im.presence.onlineAmong(appId, ['bob']), (s) => s.has('bob'));
    await bob.waitFrames('message', 2);
    // Delivered once acknowledged: for the JSON socket, once written to the connection.
    await waitFor(async () => sample(await metrics(), 'parley_im_offline_delivered_total'), (n) => n === 2);
    const connected = await metrics();
    expect(sample(connected, 'parley_im_sockets_open')).toBe(1);
    expect(sample(connected, 'parley_im_offline_delivered_total')).toBe(2);
    expect(sample(connected, 'parley_im_offline_stored_total')).toBe(3);

    // A message to an online receiver is counted as sent but never stored.
    await api('POST', '/messages/users', { from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'live' } });
    await bob.waitText('live');
    await settle();
    const live = await metrics();
    expect(sample(live, 'parley_im_messages_total{chat_type="chat",type="txt"}')).toBe(3);
    expect(sample(live, 'parley_im_offline_stored_total')).toBe(3);
    expect(sample(live, 'parley_im_fanout_lag_seconds_count')).toBe(3);

    await bob.close();
    await waitFor(() => Promise.resolve(t.app.parley.im.presence.size()), (n) => n === 0);
    expect(sample(await metrics(), 'parley_im_sockets_open')).toBe(0);
  });
});
