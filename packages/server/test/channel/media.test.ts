/**
 * Uploaded media: the served type comes from the file's bytes, never the uploader's header; only
 * allow-listed types are inline, and every download is sandboxed. Each tenant has a quota, and
 * files older than the retention period are swept (file and row) by the injected clock's time.
 * Downloads are limited per client IP.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { storedFileName } from '../../src/modules/channel/media.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('\0\0\0\rIHDR fake png body')]);
const HTML = Buffer.from('<!doctype html><script>fetch("/api/tenants").then(r => r.text()).then(alert)</script>');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>');
const MIB = 1024 * 1024;
const DAY = 24 * 3_600_000;

function multipart(filename: string, contentType: string, content: Buffer): { payload: Buffer; contentType: string } {
  const boundary = '----parley-media';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` };
}

function expectSandboxed(res: LightMyRequestResponse): void {
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.headers['content-security-policy']).toContain('sandbox');
}

describe.each(ENGINES)('uploaded media on %s', (engine) => {
  let t: TestApp;
  let clock: FakeClock;
  let tenant: { tenantId: number; adminToken: string };
  let other: { tenantId: number; adminToken: string };
  let third: { tenantId: number; adminToken: string };
  const mediaDir = () => path.join(t.app.parley.config.dataDir, 'media');
  const filesOnDisk = () => (fs.existsSync(mediaDir()) ? fs.readdirSync(mediaDir()).length : 0);
  const rows = async () => (await t.app.parley.storage.db.selectFrom('channel_media').select('id').execute()).length;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_MEDIA_QUOTA_MB: '1', PARLEY_MEDIA_RETENTION_DAYS: '30', PARLEY_TOKEN_TTL_SECONDS: String(365 * 24 * 3600) } });
    clock = t.clock as FakeClock;
    const root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Media');
    other = await createTenant(t.app, root, 'Other');
    third = await createTenant(t.app, root, 'Third');
  });
  afterAll(async () => t?.close());

  async function upload(filename: string, contentType: string, content: Buffer, who = tenant) {
    const body = multipart(filename, contentType, content);
    return t.app.inject({
      method: 'POST',
      url: `/api/tenants/${who.tenantId}/media`,
      headers: { authorization: `Bearer ${who.adminToken}`, 'content-type': body.contentType },
      payload: body.payload,
    });
  }
  async function uploaded(filename: string, contentType: string, content: Buffer, who = tenant) {
    const res = await upload(filename, contentType, content, who);
    expect(res.statusCode).toBe(200);
    return res.json().entity as { url: string; filename: string; file_length: number; content_type: string };
  }
  const download = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });

  it('serves an HTML upload as a sandboxed octet-stream attachment', async () => {
    const media = await uploaded('x.html', 'text/html', HTML);
    expect(media.content_type).toBe('application/octet-stream');
    expect(new URL(media.url).pathname).toMatch(/^\/media\/[0-9a-f]{32}$/);
    const res = await download(media.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe("attachment; filename*=UTF-8''x.html");
    expectSandboxed(res);
    expect(res.rawPayload.equals(HTML)).toBe(true);
  });

  it('serves an SVG upload as an attachment, never as an image', async () => {
    const media = await uploaded('logo.svg', 'image/svg+xml', SVG);
    expect(media.content_type).toBe('application/octet-stream');
    const res = await download(media.url);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toMatch(/^attachment;/);
    expectSandboxed(res);
  });

  it('serves a PNG inline as image/png even when it was uploaded as text/html', async () => {
    const media = await uploaded('picture.html', 'text/html', PNG);
    expect(media.content_type).toBe('image/png');
    const res = await download(media.url);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-disposition']).toBe("inline; filename*=UTF-8''picture.html");
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expectSandboxed(res);
    expect(res.rawPayload.equals(PNG)).toBe(true);
  });

  it('does not serve an HTML file named and labelled as a PNG as an image', async () => {
    const media = await uploaded('photo.png', 'image/png', HTML);
    expect(media.content_type).toBe('application/octet-stream');
    const res = await download(media.url);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toMatch(/^attachment;/);
  });

  it('writes the file name in the Content-Disposition as a valid RFC 5987 value', async () => {
    const media = await uploaded("it's (1)*.pdf", 'application/pdf', Buffer.from('%PDF-1.4\n'));
    expect(media.content_type).toBe('application/pdf');
    const res = await download(media.url);
    expect(res.headers['content-disposition']).toBe("inline; filename*=UTF-8''it%27s%20%281%29%2A.pdf");
  });

  it('keeps a file name holding U+0000 and other control characters with those characters replaced', async () => {
    const media = await uploaded('a\u0000b\u0007c.txt', 'text/plain', Buffer.from('hello'));
    expect(media.filename).toBe('a_b_c.txt');
    const res = await download(media.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe("attachment; filename*=UTF-8''a_b_c.txt");
  });

  it('serves the former /api/media path alike, and never trusts a type recorded before sniffing', async () => {
    const media = await uploaded('x.html', 'text/html', HTML);
    const id = new URL(media.url).pathname.split('/').pop()!;
    const old = await t.app.inject({ method: 'GET', url: `/api/media/${id}` });
    expect(old.statusCode).toBe(200);
    expect(old.headers['content-type']).toBe('application/octet-stream');
    expectSandboxed(old);
    // A row written by an earlier build kept the uploader's header: it is still a download.
    await t.app.parley.storage.db.updateTable('channel_media').set({ content_type: 'text/html' }).where('id', '=', id).execute();
    const legacy = await download(media.url);
    expect(legacy.headers['content-type']).toBe('application/octet-stream');
    expect(legacy.headers['content-disposition']).toMatch(/^attachment;/);
    expect((await t.app.inject({ method: 'GET', url: '/media/ffffffffffffffffffffffffffffffff' })).statusCode).toBe(404);
  });

  it('refuses an upload past the tenant quota with media_quota_exceeded, leaving no file and no row', async () => {
    // The quota is 1 MiB: fill most of it, then one more file does not fit.
    const big = Buffer.alloc(MIB - 64 * 1024, 1);
    const first = await upload('a.bin', 'application/octet-stream', big, other);
    expect(first.statusCode).toBe(200);
    const [filesBefore, rowsBefore] = [filesOnDisk(), await rows()];
    const refused = await upload('b.bin', 'application/octet-stream', Buffer.alloc(128 * 1024, 2), other);
    expect(refused.statusCode).toBe(413);
    expect(refused.json()).toMatchObject({ status: 'FAIL', errorCode: 'media_quota_exceeded' });
    expect(filesOnDisk()).toBe(filesBefore);
    expect(await rows()).toBe(rowsBefore);
    // Another tenant's quota is its own; a small file still fits this one.
    expect((await upload('c.png', 'image/png', PNG, other)).statusCode).toBe(200);
    expect((await upload('d.png', 'image/png', PNG)).statusCode).toBe(200);
  });

  it('keeps to the quota when uploads arrive at the same time', async () => {
    const [filesBefore, rowsBefore] = [filesOnDisk(), await rows()];
    // Six files of 400 KiB at once against 1 MiB: each fits alone, two fit together.
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => upload(`${i}.bin`, 'application/octet-stream', Buffer.alloc(400 * 1024, i), third)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 413, 413, 413, 413]);
    expect(filesOnDisk()).toBe(filesBefore + 2);
    expect(await rows()).toBe(rowsBefore + 2);
    expect(await t.app.parley.channel.media.sweepExpired()).toBe(0);
  });

  it('sweeps files older than the retention period, file and row, and keeps newer ones', async () => {
    const old = await uploaded('old.png', 'image/png', PNG);
    clock.advance(20 * DAY);
    const recent = await uploaded('recent.png', 'image/png', PNG);
    const idOf = (m: { url: string }) => new URL(m.url).pathname.split('/').pop()!;

    clock.advance(9 * DAY); // old: 29 days, inside the 30-day retention
    await t.app.parley.channel.media.sweepExpired();
    expect((await download(old.url)).statusCode).toBe(200);

    clock.advance(2 * DAY); // old: 31 days, recent: 11 days
    expect(await t.app.parley.channel.media.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect((await download(old.url)).statusCode).toBe(404);
    expect(fs.existsSync(path.join(mediaDir(), idOf(old)))).toBe(false);
    expect(await t.app.parley.storage.db.selectFrom('channel_media').select('id').where('id', '=', idOf(old)).executeTakeFirst()).toBeUndefined();
    expect((await download(recent.url)).statusCode).toBe(200);
    expect(fs.existsSync(path.join(mediaDir(), idOf(recent)))).toBe(true);
  });
});

describe('media retention 0', () => {
  it('keeps files forever', async () => {
    const t = await createTestApp('sqlite', { env: { PARLEY_MEDIA_RETENTION_DAYS: '0' } });
    try {
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, 'Forever');
      const body = multipart('keep.png', 'image/png', PNG);
      const res = await t.app.inject({ method: 'POST', url: `/api/tenants/${tenant.tenantId}/media`, headers: { authorization: `Bearer ${tenant.adminToken}`, 'content-type': body.contentType }, payload: body.payload });
      (t.clock as FakeClock).advance(10 * 365 * DAY);
      expect(await t.app.parley.channel.media.sweepExpired()).toBe(0);
      expect((await t.app.inject({ method: 'GET', url: new URL(res.json().entity.url).pathname })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('media download limit', () => {
  it('answers 429 reach_limit with Retry-After past PARLEY_MEDIA_RATE_LIMIT a minute per client IP, until the window ends', async () => {
    const t = await createTestApp('sqlite', { env: { PARLEY_MEDIA_RATE_LIMIT: '3' } });
    try {
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, 'Limited');
      const body = multipart('pic.png', 'image/png', PNG);
      const res = await t.app.inject({ method: 'POST', url: `/api/tenants/${tenant.tenantId}/media`, headers: { authorization: `Bearer ${tenant.adminToken}`, 'content-type': body.contentType }, payload: body.payload });
      const url = new URL(res.json().entity.url).pathname;
      const get = (remoteAddress = '203.0.113.7') => t.app.inject({ method: 'GET', url, remoteAddress });
      for (let i = 0; i < 3; i++) expect((await get()).statusCode).toBe(200);
      const limited = await get();
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ error: 'reach_limit' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Another client is not affected; the same one is served again once its minute is over.
      expect((await get('203.0.113.8')).statusCode).toBe(200);
      (t.clock as FakeClock).advance(60_000);
      expect((await get()).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('stored file names', () => {
  it('drops the path, replaces control characters and unpaired surrogates, and bounds the length', () => {
    expect(storedFileName('../../etc/passwd')).toBe('passwd');
    expect(storedFileName('a\u0000b\u001fc\u007f.txt')).toBe('a_b_c_.txt');
    expect(storedFileName('x\ud800y\udc00z.png')).toBe('x_y_z.png');
    expect(storedFileName('smile \ud83d\ude00.png')).toBe('smile \ud83d\ude00.png');
    expect(storedFileName('')).toBe('file');
    expect(storedFileName('n'.repeat(300))).toHaveLength(255);
  });
});
