/**
 * Contacts and block lists driven by the real SDKs (`addContact`, `acceptContactInvite`,
 * `declineContactInvite`, `deleteContact`, `getContacts`, `getAllContacts`,
 * `addUsersToBlocklist`, `removeUserFromBlocklist`, `getBlocklist`), with the contact events the
 * other side's SDK raises from the ROSTER notifications (`onContactInvited`, `onContactAgreed`,
 * `onContactAdded`, `onContactRefuse`, `onContactDeleted`): a blocked user's one-to-one
 * messages are refused over REST, the JSON socket and msync, and nothing of them is stored; bad
 * requests answer Easemob's errors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.js';
import { assertNoForeignRequests, SDK_PACKAGES } from '../helpers/easemob-sdk.js';
import { ENGINES } from '../helpers/engines.js';
import { SocketClient, waitFor } from '../helpers/im.js';
import { msyncWorld, type MsyncWorld } from '../helpers/msync.js';

const CASES = ENGINES.flatMap((engine) => SDK_PACKAGES.map((sdkPackage) => [engine, sdkPackage] as const));

describe.each(CASES)('contacts on %s with %s', (engine, sdkPackage) => {
  let w: MsyncWorld;
  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cal', 'dan'], { sdkPackage });
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  it('apply, accept, list both ways, delete', async () => {
    const ann = await w.login('ann');
    const ben = await w.login('ben');
    await ann.conn.addContact('ben', 'hi, Ann here');
    const [invited] = await waitFor(() => ben.of('contactInvited'), (e) => e.length === 1);
    expect(invited).toMatchObject({ type: 'subscribe', from: 'ann', to: 'ben', status: 'hi, Ann here' });
    // No contact before the answer.
    expect((await ann.conn.getContacts()).data).toEqual([]);
    await ben.conn.acceptContactInvite('ann');
    const [agreed] = await waitFor(() => ann.of('contactAgreed'), (e) => e.length === 1);
    expect(agreed).toMatchObject({ from: 'ben', to: 'ann' });
    await waitFor(() => ann.of('contactAdded'), (e) => e.length === 1);
    expect((await ann.conn.getContacts()).data).toEqual(['ben']);
    expect((await ben.conn.getAllContacts()).data).toEqual([{ userId: 'ann', remark: '' }]);
    await ben.conn.deleteContact('ann');
    const [deleted] = await waitFor(() => ann.of('contactDeleted'), (e) => e.length === 1);
    expect(deleted).toMatchObject({ from: 'ben', to: 'ann' });
    expect((await ann.conn.getContacts()).data).toEqual([]);
    expect((await ben.conn.getContacts()).data).toEqual([]);
  });

  it('decline drops the request; accepting it afterwards is 404', async () => {
    const cal = await w.login('cal');
    const dan = await w.login('dan');
    await cal.conn.addContact('dan', '');
    await waitFor(() => dan.of('contactInvited'), (e) => e.length === 1);
    await dan.conn.declineContactInvite('cal');
    const [refused] = await waitFor(() => cal.of('contactRefuse'), (e) => e.length === 1);
    expect(refused).toMatchObject({ from: 'dan', to: 'cal' });
    await expect(dan.conn.acceptContactInvite('cal')).rejects.toBeDefined();
    expect((await cal.conn.getContacts()).data).toEqual([]);
  });

  it('a request to oneself, to an unknown user or for another user is refused with Easemob errors', async () => {
    const ann = await w.token('ann');
    const base = w.im.base;
    const self = await call(w.t.app, ann, 'POST', `${base}/users/ann/contacts/apply`, { usernames: ['ann'] });
    expect(self.status).toBe(400);
    expect(self.body.error).toBe('illegal_argument');
    const unknown = await call(w.t.app, ann, 'POST', `${base}/users/ann/contacts/apply`, { usernames: ['nobody'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('service_resource_not_found');
    const foreign = await call(w.t.app, ann, 'POST', `${base}/users/ben/contacts/apply`, { usernames: ['cal'] });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe('forbidden_op');
    const listOther = await call(w.t.app, ann, 'GET', `${base}/users/ben/contacts/users`);
    expect(listOther.status).toBe(403);
  });

  it("a block refuses the blocked user's one-to-one messages on msync, REST and the JSON socket, until removed", async () => {
    const ann = await w.login('ann');
    const ben = await w.login('ben');
    const blocked = await ann.conn.addUsersToBlocklist({ name: ['ben'] });
    expect(blocked.data.userIds).toEqual(['ben']);
    expect((await ann.conn.getBlocklist()).data).toEqual(['ben']);
    await expect(ben.send({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'blocked?' })).rejects.toMatchObject({ type: 603 });
    const rest = await w.api('POST', '/messages/users', { from: 'ben', to: ['ann'], type: 'txt', body: { msg: 'blocked?' } });
    expect(rest.status).toBe(403);
    expect(rest.body.error).toBe('forbidden_op');
    const socket = await SocketClient.connect(w.url, w.im.base, await w.token('ben'));
    const refused = await socket.request({ op: 'send', id: 's1', chat_type: 'chat', to: 'ann', bodies: [{ type: 'txt', msg: 'blocked?' }] });
    expect(refused).toMatchObject({ op: 'error', id: 's1', error: 'forbidden_op' });
    socket.ws.close();
    expect((await w.api('GET', '/users/ann/offline_msg_count')).body.data.ann).toBe(0);
    // Ann may still write to Ben; others may still write to Ann.
    await ann.send({ type: 'txt', chatType: 'singleChat', to: 'ben', msg: 'one way' });
    await ann.conn.removeUserFromBlocklist({ name: 'ben' });
    expect((await ann.conn.getBlocklist()).data).toEqual([]);
    await ben.send({ type: 'txt', chatType: 'singleChat', to: 'ann', msg: 'again' });
    await waitFor(() => ann.of('text').map((m: { msg: string }) => m.msg), (msgs) => msgs.includes('again'));
    expect(ann.of('text').map((m: { msg: string }) => m.msg)).not.toContain('blocked?');
  });

  it('setContactRemark keeps a remark per contact; getAllContacts and getContactsWithCursor list them, a page at a time', async () => {
    const im = w.t.app.parley.im;
    const app = await im.apps.requireApp(w.im.org, w.im.name);
    for (const other of ['ben', 'cal', 'dan']) {
      await im.contacts.apply(app, other, 'ann');
      await im.contacts.accept(app, 'ann', other);
    }
    const ann = await w.login('ann');
    await ann.conn.setContactRemark({ userId: 'cal', remark: 'Cal from work' });
    expect((await ann.conn.getAllContacts()).data).toEqual([
      { userId: 'ben', remark: '' },
      { userId: 'cal', remark: 'Cal from work' },
      { userId: 'dan', remark: '' },
    ]);
    const first = await ann.conn.getContactsWithCursor({ pageSize: 2 });
    expect(first.data.contacts).toEqual([
      { userId: 'ben', remark: '' },
      { userId: 'cal', remark: 'Cal from work' },
    ]);
    const second = await ann.conn.getContactsWithCursor({ pageSize: 2, cursor: first.data.cursor });
    expect(second.data).toEqual({ cursor: '', contacts: [{ userId: 'dan', remark: '' }] });
    // The remark is the user's own: the contact's list shows none.
    expect((await (await w.login('cal')).conn.getAllContacts()).data).toEqual([{ userId: 'ann', remark: '' }]);

    const token = await w.token('ann');
    const put = (name: string, body: unknown) => call(w.t.app, token, 'PUT', `${w.im.base}/users/ann/contacts/users/${name}`, body);
    expect((await put('eve', { remark: 'x' })).status).toBe(404);
    expect((await put('ben', { remark: 'x'.repeat(101) })).status).toBe(400);
    expect((await call(w.t.app, token, 'GET', `${w.im.base}/users/ann/contacts?limit=2&cursor=%25%25`)).body.error).toBe('illegal_argument');
    expect((await call(w.t.app, token, 'GET', `${w.im.base}/users/ben/contacts?limit=2`)).status).toBe(403);
    expect((await ann.conn.getAllContacts()).data.map((c: { remark: string }) => c.remark)).toEqual(['', 'Cal from work', '']);
  });
});
