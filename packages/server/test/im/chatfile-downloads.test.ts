/**
 * Chat-file downloads are limited per client IP on both engines (PARLEY_IM_FILE_DOWNLOAD_RATE_LIMIT a
 * minute): a download needs no token (its share secret opens it), so one address past the limit gets
 * 429 `reach_limit` in the IM envelope with Retry-After, with or without a token, before anything
 * is read; other addresses still download, and the next window (the injected clock) lets it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, userToken, type ImAppHandle } from '../helpers/im.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf00000301010018dd8db00000000049454e44ae426082', 'hex');

describe.each(ENGINES)('chat-file downloads per client IP on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let url: string;
  let file: { uuid: string; secret: string };
  const download = (from: string, headers: Record<string, string> = {}) =>
    fetch(`${url}${im.base}/chatfiles/${file.uuid}?share-secret=${encodeURIComponent(file.secret)}`, { headers: { 'x-forwarded-for': from, ...headers } });

  beforeAll(async () => {
    // Loopback is a trusted proxy, so requests can come from addresses of their own (X-Forwarded-For).
    t = await createTestApp(engine, { env: { PARLEY_IM_FILE_DOWNLOAD_RATE_LIMIT: '3', PARLEY_TRUST_PROXY: '127.0.0.1' } });
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'ann');
    url = await listen(t.app);
    const form = new FormData();
    form.append('file', new File([PNG], 'dot.png'));
    const res = await fetch(`${url}${im.base}/chatfiles`, { method: 'POST', headers: { authorization: `Bearer ${await userToken(t.app, im, 'ann')}` }, body: form });
    expect(res.status).toBe(200);
    const [entity] = ((await res.json()) as { entities: Array<{ uuid: string; 'share-secret': string }> }).entities;
    file = { uuid: entity!.uuid, secret: entity!['share-secret'] };
  });
  afterAll(async () => t?.close());

  it('answers 429 reach_limit in the IM envelope past the limit of one address, token or not; others and the next window download', async () => {
    const clock = t.clock as FakeClock;
    clock.advance(60_000); // a fresh window
    for (let i = 0; i < 3; i++) expect((await download('10.0.0.7')).status).toBe(200);
    const refused = await download('10.0.0.7');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: 'reach_limit', error_description: expect.any(String), timestamp: expect.any(Number) });
    // A token does not lift it: the address is over its limit.
    expect((await download('10.0.0.7', { authorization: `Bearer ${im.adminToken}` })).status).toBe(429);
    // Another address is not held by it.
    const other = await download('10.0.0.8');
    expect(other.status).toBe(200);
    expect(Buffer.from(await other.arrayBuffer()).equals(PNG)).toBe(true);
    clock.advance(60_000);
    expect((await download('10.0.0.7')).status).toBe(200);
  });
});
