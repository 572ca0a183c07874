/**
 * Chat files with the real Easemob Web SDK on both engines: an `img` message with a file uploads it
 * to `/chatfiles` first, and the receiver's URL downloads it with no header (as an <img> would), with
 * `easemob-websdk` and with `agora-chat`,
 * typed from its bytes, `nosniff` and sandboxed. A file's share-secret never opens another file,
 * a wrong or missing one reads as not found; the size limit, the media quota and the retention
 * sweep of the one media store apply, and nothing lands outside DATA_DIR/media.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeClock } from '../../helpers/clock.js';
import { assertNoForeignRequests, SDK_PACKAGES } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('\0\0\0\rIHDR fake png body')]);
const HTML = Buffer.from('<!doctype html><script>alert(1)</script>');
const KIB = 1024;
const DAY = 24 * 3_600_000;

describe.each(ENGINES)('chat files with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  const mediaDir = () => path.join(w.t.app.parley.config.dataDir, 'media');

  /** Uploads as the SDK does (multipart "file", restrict-access header), with `token`. */
  async function upload(content: Buffer, token: string | undefined, name = 'x.bin') {
    const form = new FormData();
    form.append('file', new File([content], name));
    const res = await fetch(`${w.url}${w.im.base}/chatfiles?chat-type=singleChat&chat-target=ben`, {
      method: 'POST',
      headers: { 'restrict-access': 'true', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: form,
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }
  const download = (uuid: string, query = '', headers: Record<string, string> = {}) => fetch(`${w.url}${w.im.base}/chatfiles/${uuid}${query}`, { headers });

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben'], { env: { PARLEY_IM_FILE_MAX_MB: '1', PARLEY_MEDIA_QUOTA_MB: '2', PARLEY_MEDIA_RETENTION_DAYS: '30' } });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  it.each(SDK_PACKAGES)('%s: an img message uploads its file; the receiver downloads it by its URL with no header', async (sdkPackage) => {
    const [ann, ben] = await Promise.all([w.login('ann', sdkPackage), w.login('ben', sdkPackage)]);
    await waitFor(() => w.online('ben'), (on) => on);
    const ack = await ann.send({ type: 'img', chatType: 'singleChat', to: 'ben', file: { data: new File([PNG], 'cat.png', { type: 'image/png' }), filename: 'cat.png' }, width: 4, height: 3 });
    const got = (await waitFor(() => ben.messages().find((m) => m.id === ack.serverMsgId), Boolean)) as { url: string };
    expect(got).toMatchObject({ type: 'img', from: 'ann' });
    expect(got.url).toContain(`${w.url}${w.im.base}/chatfiles/`);
    expect(got.url).toContain('share-secret=');
    const res = await fetch(got.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    // The file lies in the one media store, by its uuid.
    const uuid = new URL(got.url).pathname.split('/').pop()!;
    expect(fs.existsSync(path.join(mediaDir(), uuid))).toBe(true);
  });

  it('answers Easemob’s entities to any token of the app, and refuses no token', async () => {
    const asUser = await upload(PNG, await w.token('ben'));
    expect(asUser.status).toBe(200);
    expect(asUser.body.entities).toEqual([{ uuid: expect.stringMatching(/^[0-9a-f]{32}$/), type: 'chatfile', 'share-secret': expect.any(String) }]);
    expect(asUser.body).toMatchObject({ path: '/chatfiles', action: 'post', organization: w.im.org, applicationName: w.im.name });
    expect((await upload(PNG, w.im.adminToken)).status).toBe(200);
    expect((await upload(PNG, undefined)).status).toBe(401);
  });

  it('a share-secret opens its own file only; a wrong or missing one is not found; a token opens any', async () => {
    const a = (await upload(PNG, w.im.adminToken)).body.entities[0];
    const b = (await upload(HTML, w.im.adminToken, 'page.html')).body.entities[0];
    expect((await download(a.uuid, `?share-secret=${encodeURIComponent(a['share-secret'])}`)).status).toBe(200);
    const crossed = await download(b.uuid, `?share-secret=${encodeURIComponent(a['share-secret'])}`);
    expect(crossed.status).toBe(404);
    expect(await crossed.json()).toMatchObject({ error: 'service_resource_not_found' });
    expect((await download(b.uuid)).status).toBe(404);
    expect((await download('0'.repeat(32), `?share-secret=${encodeURIComponent(a['share-secret'])}`)).status).toBe(404);
    expect((await download('../../etc/passwd')).status).toBe(404);
    const byToken = await download(b.uuid, '', { authorization: `Bearer ${await w.token('ann')}` });
    expect(byToken.status).toBe(200);
    // Not on the inline list: served as a download, never as a page.
    expect(byToken.headers.get('content-type')).toBe('application/octet-stream');
    expect(byToken.headers.get('content-disposition')).toMatch(/^attachment/);
    expect((await download(b.uuid, '', { authorization: 'Bearer nope' })).status).toBe(401);
  });

  it('refuses a file over PARLEY_IM_FILE_MAX_MB, and uploads past the media quota, leaving nothing behind', async () => {
    const before = fs.readdirSync(mediaDir()).length;
    const rows = async () => (await w.t.app.parley.storage.db.selectFrom('im_files').select('id').execute()).length;
    const rowsBefore = await rows();
    const big = await upload(Buffer.alloc(1024 * KIB + 1, 1), w.im.adminToken);
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('payload_too_large');
    expect(fs.readdirSync(mediaDir()).length).toBe(before);
    // 2 MiB quota: two files of 900 KiB fit beside the small ones, a third does not.
    expect((await upload(Buffer.alloc(900 * KIB, 2), w.im.adminToken)).status).toBe(200);
    expect((await upload(Buffer.alloc(900 * KIB, 3), w.im.adminToken)).status).toBe(200);
    const over = await upload(Buffer.alloc(900 * KIB, 4), w.im.adminToken);
    expect(over.status).toBe(413);
    expect(over.body.error).toBe('media_quota_exceeded');
    expect(await rows()).toBe(rowsBefore + 2);
    expect(fs.readdirSync(mediaDir()).length).toBe(before + 2);
  });

  it('the retention sweep deletes files older than PARLEY_MEDIA_RETENTION_DAYS, row and bytes', async () => {
    const old = (await upload(PNG, w.im.adminToken)).body.entities[0];
    (w.t.clock as FakeClock).advance(31 * DAY);
    expect(await w.t.app.parley.im.files.sweepExpired()).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(mediaDir(), old.uuid))).toBe(false);
    expect((await download(old.uuid, `?share-secret=${encodeURIComponent(old['share-secret'])}`)).status).toBe(404);
  });
});
