/**
 * Both SDK packages, `easemob-websdk` and `agora-chat` (the same code under Agora's name), against
 * one Parley: each logs in by password and by a REST-issued token, and they message each other
 * over the msync gateway; neither reaches a host other than the server under test. The guard that
 * fails a test on such a request catches both: left with its own host lookup on (`isHttpDNS`), each
 * package asks its vendor's DNS host, which the guard refuses and records.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, SDK_PACKAGES, SdkClient, takeForeignRequests } from '../helpers/easemob-sdk.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/im.js';
import { msyncWorld, PASSWORD, type MsyncWorld } from '../helpers/msync.js';

describe.each(ENGINES)('both SDK packages on %s', (engine) => {
  let w: MsyncWorld;
  const clients: SdkClient[] = [];
  const client = (sdkPackage: (typeof SDK_PACKAGES)[number], isHttpDNS = false) => {
    const c = new SdkClient({ baseUrl: w.url, appKey: w.appKey, randomDevice: true, sdkPackage, isHttpDNS });
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben']);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await w?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it.each(SDK_PACKAGES)('%s logs in by password and by token', async (sdkPackage) => {
    const byPassword = client(sdkPackage);
    await byPassword.open('ann', { pwd: PASSWORD });
    expect(byPassword.of('connected')).toHaveLength(1);
    const byToken = client(sdkPackage);
    await byToken.open('ben', { accessToken: await w.token('ben') });
    expect(byToken.of('connected')).toHaveLength(1);
    await expect(client(sdkPackage).open('ann', { pwd: 'wrong-password' })).rejects.toMatchObject({ type: 1 });
    byPassword.close();
    byToken.close();
    await waitFor(() => w.online('ann'), (on) => !on);
  });

  it('an agora-chat client and an easemob-websdk client message each other', async () => {
    const agora = client('agora-chat');
    await agora.open('ann', { pwd: PASSWORD });
    const easemob = client('easemob-websdk');
    await easemob.open('ben', { pwd: PASSWORD });
    const sent = await agora.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'from agora' });
    expect(sent.serverMsgId).toMatch(/^\d+$/);
    await waitFor(() => easemob.of('text').length, (n) => n === 1);
    expect(easemob.of('text')[0]).toMatchObject({ from: 'ann', msg: 'from agora', id: sent.serverMsgId });
    await easemob.send({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'from easemob' });
    await waitFor(() => agora.of('text').length, (n) => n === 1);
    expect(agora.of('text')[0]).toMatchObject({ from: 'ben', msg: 'from easemob' });
  });

  it.each([
    ['easemob-websdk', 'rs.easemob.com'],
    ['agora-chat', 'ars.chat.agora.io'],
  ] as const)('%s with isHttpDNS on asks %s: the guard refuses and records it', async (sdkPackage, dnsHost) => {
    await expect(client(sdkPackage, true).open('ann', { pwd: PASSWORD })).rejects.toBeDefined();
    const foreign = takeForeignRequests();
    expect(foreign.some((url) => new URL(url).host === dnsHost)).toBe(true);
    expect(() => assertNoForeignRequests()).not.toThrow();
  });
});
