/**
 * Group and chat-room shared files with the real SDKs (`easemob-websdk` and `agora-chat`) on both
 * engines, with the users' own tokens: `uploadGroupSharedFile`, `getGroupSharedFilelist`, `downloadGroupSharedFile` (the
 * bytes as uploaded), `deleteGroupSharedFile`, and the chat room's upload, list and delete. The
 * other members' SDKs raise `onGroupEvent` / `onChatroomEvent` with `uploadFile` and `deleteFile`;
 * a member who neither uploaded the file nor manages the group is refused the delete with
 * PERMISSION_DENIED; a deleted file is gone from the list, the download and the media store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertNoForeignRequests, SDK_PACKAGES, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { waitFor } from '../../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const PDF = Buffer.from('%PDF-1.4\n% a plan for the launch\n%%EOF\n');

const CASES = ENGINES.flatMap((engine) => SDK_PACKAGES.map((sdkPackage) => [engine, sdkPackage] as const));

describe.each(CASES)('shared files with the SDK on %s with %s', (engine, sdkPackage) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal'], { sdkPackage });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  const mediaFile = (fileId: string) => path.join(w.t.app.parley.config.dataDir, 'media', fileId);
  const errorsOf = (client: SdkClient) => client.sdk.default?.statusCode ?? client.sdk.statusCode;
  const eventsOf = (client: SdkClient, kind: 'groupEvent' | 'chatroomEvent', operation: string, id: string) =>
    waitFor(
      () => client.of(kind).filter((e: Any) => e.operation === operation && e.id === id),
      (list) => list.length >= 1,
    );
  /** The SDK's upload, which answers through callbacks: the server's answer, or the SDK's error. */
  const uploaded = (start: (handlers: Any) => void): Promise<Any> =>
    new Promise((resolve, reject) => start({ file: { data: new File([PDF], 'plan.pdf'), filename: 'plan.pdf' }, onFileUploadComplete: resolve, onFileUploadError: reject }));

  it('a member shares a file in a group; the others are told, list it, download it; only its uploader or a manager deletes it', async () => {
    const [ann, ben, cal] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cal')]);
    const created = await ann.conn.createGroup({ data: { groupname: 'launch', desc: '', members: ['ben', 'cal'], public: true, approval: false, allowinvites: false, inviteNeedConfirm: false, maxusers: 200 } });
    const groupId = created.data.groupid as string;

    const answer = await uploaded((handlers) => ben.conn.uploadGroupSharedFile({ groupId, ...handlers }));
    const fileId = answer.data.file_id as string;
    expect(answer.data).toEqual({
      file_url: `${w.url}${w.im.base}/chatgroups/${groupId}/share_files/${fileId}`,
      group_id: groupId,
      file_name: 'plan.pdf',
      created: w.t.clock.now(),
      file_id: fileId,
      file_size: PDF.length,
    });
    for (const member of [ann, cal]) expect((await eventsOf(member, 'groupEvent', 'uploadFile', groupId))[0]).toMatchObject({ from: 'ben' });

    const list = await cal.conn.getGroupSharedFilelist({ groupId, pageNum: 1, pageSize: 10 });
    expect(list.data).toEqual([{ file_id: fileId, file_name: 'plan.pdf', file_owner: 'ben', file_size: PDF.length, created: w.t.clock.now() }]);

    const blob = await new Promise<Blob>((resolve, reject) => cal.conn.downloadGroupSharedFile({ groupId, fileId, onFileDownloadComplete: resolve, onFileDownloadError: reject }));
    expect(Buffer.from(await blob.arrayBuffer()).equals(PDF)).toBe(true);
    expect(blob.type).toBe('application/pdf');

    await expect(cal.conn.deleteGroupSharedFile({ groupId, fileId })).rejects.toMatchObject({ type: errorsOf(cal).PERMISSION_DENIED });
    expect(fs.existsSync(mediaFile(fileId))).toBe(true);
    expect((await ben.conn.deleteGroupSharedFile({ groupId, fileId })).data).toEqual({ group_id: groupId, file_id: fileId, result: true });
    for (const member of [ann, cal]) expect((await eventsOf(member, 'groupEvent', 'deleteFile', groupId))[0]).toMatchObject({ from: 'ben' });
    expect((await cal.conn.getGroupSharedFilelist({ groupId })).data).toEqual([]);
    expect(fs.existsSync(mediaFile(fileId))).toBe(false);
    const gone = await fetch(`${w.url}${w.im.base}/chatgroups/${groupId}/share_files/${fileId}`, { headers: { authorization: `Bearer ${await w.token('cal')}` } });
    expect(gone.status).toBe(404);

    // The owner deletes what a member shared.
    const again = await uploaded((handlers) => cal.conn.uploadGroupSharedFile({ groupId, ...handlers }));
    expect((await ann.conn.deleteGroupSharedFile({ groupId, fileId: again.data.file_id })).data.result).toBe(true);
  });

  it('a chat-room member shares a file; the others are told and list it; the room owner deletes it', async () => {
    const [ann, ben, cal] = await Promise.all([w.login('ann'), w.login('ben'), w.login('cal')]);
    const roomId = (await w.api('POST', '/chatrooms', { name: 'lobby', description: '', owner: 'ann' })).body.data.id as string;
    for (const client of [ben, cal]) await client.conn.joinChatRoom({ roomId });

    const answer = await uploaded((handlers) => ben.conn.uploadChatRoomSharedFile({ roomId, ...handlers }));
    const fileId = answer.data.file_id as string;
    expect(answer.data).toMatchObject({ group_id: roomId, file_name: 'plan.pdf', file_size: PDF.length, file_url: `${w.url}${w.im.base}/chatrooms/${roomId}/share_files/${fileId}` });
    for (const member of [ann, cal]) expect((await eventsOf(member, 'chatroomEvent', 'uploadFile', roomId))[0]).toMatchObject({ from: 'ben' });
    expect((await cal.conn.getChatRoomSharedFilelist({ roomId })).data).toEqual([{ file_id: fileId, file_name: 'plan.pdf', file_owner: 'ben', file_size: PDF.length, created: w.t.clock.now() }]);
    const download = await fetch(answer.data.file_url, { headers: { authorization: `Bearer ${await w.token('cal')}` } });
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);

    await expect(cal.conn.deleteChatRoomSharedFile({ roomId, fileId })).rejects.toMatchObject({ type: errorsOf(cal).PERMISSION_DENIED });
    expect((await ann.conn.deleteChatRoomSharedFile({ roomId, fileId })).data).toEqual({ group_id: roomId, file_id: fileId, result: true });
    for (const member of [ben, cal]) expect((await eventsOf(member, 'chatroomEvent', 'deleteFile', roomId))[0]).toMatchObject({ from: 'ann' });
    expect((await ben.conn.getChatRoomSharedFilelist({ roomId })).data).toEqual([]);
  });
});
