/**
 * Group and chat-room shared files over REST and the JSON socket, on both engines: who may upload,
 * read and delete (a non-member 403, a member deletes only their own, an admin or the app any);
 * bad input answered with Easemob's errors and nothing half-written (no `file` field, not
 * multipart, unknown group or file, another group's file, a bad page, a file over the size limit,
 * past the media quota); a shared file never opens through `/chatfiles`; pages newest first;
 * `group_op_event` SHARE_FILE records; JSON-socket members get `uploadFile` / `deleteFile`; a
 * deleted group's files are swept, row and bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.js';
import type { CallbackReceiver } from '../helpers/callback-receiver.js';
import type { FakeClock } from '../helpers/clock.js';
import { assertNoForeignRequests } from '../helpers/easemob-sdk.js';
import { ENGINES } from '../helpers/engines.js';
import { SocketClient, waitFor } from '../helpers/im.js';
import { groupOpReceiver, msyncWorld, type MsyncWorld } from '../helpers/msync.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const KIB = 1024;
const TEXT = Buffer.from('minutes of the meeting\n');

describe.each(ENGINES)('shared files over REST on %s', (engine) => {
  let w: MsyncWorld;
  let receiver: CallbackReceiver;
  const mediaDir = () => path.join(w.t.app.parley.config.dataDir, 'media');
  const rows = async () => (await w.t.app.parley.storage.db.selectFrom('im_files').select('id').execute()).length;
  const group = async (members: string[]) => (await w.api('POST', '/chatgroups', { groupname: 'files', description: '', public: true, maxusers: 10, owner: 'ann', members })).body.data.groupid as string;
  const as = async (user: string | null) => (user === null ? w.im.adminToken : await w.token(user));
  const user = async (name: string | null) => {
    const token = await as(name);
    return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', p: string, payload?: unknown) => call(w.t.app, token, method, `${w.im.base}${p}`, payload);
  };

  /** Uploads as the SDK does (multipart "file"), as `who` (null: the app). */
  async function upload(target: string, who: string | null, content: Buffer = TEXT, name = 'notes.txt', field = 'file') {
    const form = new FormData();
    form.append(field, new File([content], name));
    const res = await fetch(`${w.url}${w.im.base}/${target}/share_files`, { method: 'POST', headers: { authorization: `Bearer ${await as(who)}` }, body: form });
    return { status: res.status, body: (await res.json()) as Any };
  }

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan'], { env: { PARLEY_IM_FILE_MAX_MB: '1', PARLEY_MEDIA_QUOTA_MB: '3' } });
    ({ receiver } = await groupOpReceiver(w));
  });
  afterAll(async () => {
    await w?.close();
    await receiver?.close();
  });
  afterEach(() => assertNoForeignRequests());

  it('members read, the uploader, an admin or the app deletes; a non-member is refused; SHARE_FILE records; JSON-socket members are told', async () => {
    const gid = await group(['ben', 'cal']);
    expect((await w.api('POST', `/chatgroups/${gid}/admin`, { newadmin: 'cal' })).status).toBe(200);
    const ann = await SocketClient.connect(w.url, w.im.base, await w.token('ann'));
    await waitFor(() => w.online('ann'), (on) => on);

    expect((await upload(`chatgroups/${gid}`, 'dan')).status).toBe(403);
    const shared = await upload(`chatgroups/${gid}`, 'ben');
    expect(shared.status).toBe(200);
    const fileId = shared.body.data.file_id as string;
    const frame = (await ann.waitFrames('group_event', 1)).find((f: Any) => f.operation === 'uploadFile');
    expect(frame).toMatchObject({ operation: 'uploadFile', from: 'ben', group_id: gid, file_id: fileId, file_name: 'notes.txt' });

    const dan = await user('dan');
    expect((await dan('GET', `/chatgroups/${gid}/share_files`)).status).toBe(403);
    expect((await dan('GET', `/chatgroups/${gid}/share_files/${fileId}`)).status).toBe(403);
    expect((await dan('DELETE', `/chatgroups/${gid}/share_files/${fileId}`)).status).toBe(403);
    // A shared file is read through its group only, never as a chat file.
    expect((await w.api('GET', `/chatfiles/${fileId}`)).status).toBe(404);
    const download = await fetch(`${w.url}${w.im.base}/chatgroups/${gid}/share_files/${fileId}`, { headers: { authorization: `Bearer ${await w.token('ann')}` } });
    expect(download.status).toBe(200);
    // Typed from its bytes: plain text is not on the inline list, so it is served as a download.
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await download.arrayBuffer()).equals(TEXT)).toBe(true);

    // A member who is not the uploader may not delete; an admin may.
    const byAnn = await upload(`chatgroups/${gid}`, 'ann');
    const ben = await user('ben');
    const refused = await ben('DELETE', `/chatgroups/${gid}/share_files/${byAnn.body.data.file_id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden_op');
    const cal = await user('cal');
    expect((await cal('DELETE', `/chatgroups/${gid}/share_files/${fileId}`)).body.data).toEqual({ group_id: gid, file_id: fileId, result: true });
    expect((await w.api('DELETE', `/chatgroups/${gid}/share_files/${byAnn.body.data.file_id}`)).status).toBe(200);
    expect((await ben('GET', `/chatgroups/${gid}/share_files`)).body.data).toEqual([]);
    expect(fs.existsSync(path.join(mediaDir(), fileId))).toBe(false);

    const deleted = (await ann.waitFrames('group_event', 3)).filter((f: Any) => f.operation === 'deleteFile');
    expect(deleted[0]).toMatchObject({ from: 'cal', file_id: fileId, file_name: 'notes.txt' });
    const records = await waitFor(
      () => receiver.requests.map((r) => JSON.parse(r.body) as Any).filter((r) => r.operation === 'SHARE_FILE' && r.id === gid),
      (list) => list.length >= 4,
      15_000,
    );
    expect(records.map((r) => [r.operator, r.type, r.payload])).toEqual([
      ['ben', 'GROUP', { share_file: [fileId], type: 'ADD' }],
      ['ann', 'GROUP', { share_file: [byAnn.body.data.file_id], type: 'ADD' }],
      ['cal', 'GROUP', { share_file: [fileId], type: 'DELETE' }],
      ['@ppAdmin', 'GROUP', { share_file: [byAnn.body.data.file_id], type: 'DELETE' }],
    ]);
    await ann.close();
  });

  it('lists newest first, a page at a time; the app’s uploads are owned by @ppAdmin', async () => {
    const gid = await group(['ben']);
    const clock = w.t.clock as FakeClock;
    const ids: string[] = [];
    for (const who of ['ben', null, 'ann']) {
      ids.push((await upload(`chatgroups/${gid}`, who)).body.data.file_id as string);
      clock.advance(1_000);
    }
    const ben = await user('ben');
    const page = async (query: string) => (await ben('GET', `/chatgroups/${gid}/share_files${query}`)).body.data.map((f: Any) => [f.file_id, f.file_owner]);
    expect(await page('')).toEqual([
      [ids[2], 'ann'],
      [ids[1], '@ppAdmin'],
      [ids[0], 'ben'],
    ]);
    expect(await page('?pagenum=1&pagesize=2&version=v3')).toEqual([
      [ids[2], 'ann'],
      [ids[1], '@ppAdmin'],
    ]);
    expect(await page('?pagenum=2&pagesize=2')).toEqual([[ids[0], 'ben']]);
    expect(await page('?pagesize=5000')).toHaveLength(3);
  });

  it('bad input is refused with Easemob’s errors and leaves no row and no file behind', async () => {
    const gid = await group(['ben']);
    const other = await group(['ben']);
    const otherFile = (await upload(`chatgroups/${other}`, 'ben')).body.data.file_id as string;
    const files = fs.readdirSync(mediaDir()).length;
    const before = await rows();

    const noField = await upload(`chatgroups/${gid}`, 'ben', TEXT, 'x.txt', 'attachment');
    expect(noField.status).toBe(400);
    expect(noField.body).toMatchObject({ error: 'illegal_argument', error_description: expect.stringContaining('file') });
    const json = await (await user('ben'))('POST', `/chatgroups/${gid}/share_files`, { file: 'x' });
    expect(json.status).toBe(415);
    expect((await upload('chatgroups/99999999', null)).status).toBe(404);
    const big = await upload(`chatgroups/${gid}`, 'ben', Buffer.alloc(1024 * KIB + 1, 1));
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('payload_too_large');
    const ben = await user('ben');
    expect((await ben('GET', `/chatgroups/${gid}/share_files?pagesize=0`)).body.error).toBe('illegal_argument');
    expect((await ben('GET', `/chatgroups/${gid}/share_files/${'0'.repeat(32)}`)).status).toBe(404);
    expect((await ben('GET', `/chatgroups/${gid}/share_files/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
    // Another group's file is not this group's, to read or to delete.
    const crossed = await ben('GET', `/chatgroups/${gid}/share_files/${otherFile}`);
    expect(crossed.status).toBe(404);
    expect(crossed.body.error).toBe('service_resource_not_found');
    expect((await w.api('DELETE', `/chatgroups/${gid}/share_files/${otherFile}`)).status).toBe(404);
    expect(await rows()).toBe(before);
    expect(fs.readdirSync(mediaDir()).length).toBe(files);

    // The media quota (3 MiB here) counts shared files with the app's chat files.
    const used = Number((await w.t.app.parley.storage.db.selectFrom('im_files').select((eb) => eb.fn.sum<number>('size').as('used')).executeTakeFirst())?.used ?? 0);
    const fits = Math.floor((3 * 1024 * KIB - used) / (900 * KIB));
    for (let i = 0; i < fits; i += 1) expect((await upload(`chatgroups/${gid}`, 'ben', Buffer.alloc(900 * KIB, i))).status).toBe(200);
    const over = await upload(`chatgroups/${gid}`, 'ben', Buffer.alloc(900 * KIB, 9));
    expect(over.status).toBe(413);
    expect(over.body.error).toBe('media_quota_exceeded');
    expect(await rows()).toBe(before + fits);
    expect(fs.readdirSync(mediaDir()).length).toBe(files + fits);
  });

  it('a deleted group’s or room’s files are swept, row and bytes; other files stay', async () => {
    const gid = await group(['ben']);
    const roomId = (await w.api('POST', '/chatrooms', { name: 'lobby', description: '', owner: 'ann' })).body.data.id as string;
    const keep = await group(['ben']);
    const inGroup = (await upload(`chatgroups/${gid}`, 'ben')).body.data.file_id as string;
    const inRoom = (await upload(`chatrooms/${roomId}`, 'ann')).body.data.file_id as string;
    const kept = (await upload(`chatgroups/${keep}`, 'ben')).body.data.file_id as string;
    expect((await w.api('DELETE', `/chatgroups/${gid}`)).status).toBe(200);
    expect((await w.api('DELETE', `/chatrooms/${roomId}`)).status).toBe(200);

    expect(await w.t.app.parley.im.files.sweepExpired()).toBeGreaterThanOrEqual(2);
    for (const id of [inGroup, inRoom]) expect(fs.existsSync(path.join(mediaDir(), id))).toBe(false);
    const left = (await w.t.app.parley.storage.db.selectFrom('im_files').select('id').where('id', 'in', [inGroup, inRoom, kept]).execute()).map((r) => r.id);
    expect(left).toEqual([kept]);
    expect(fs.existsSync(path.join(mediaDir(), kept))).toBe(true);
  });
});
