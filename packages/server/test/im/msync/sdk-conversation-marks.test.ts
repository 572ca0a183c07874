/**
 * Conversation marks with the real Easemob Web SDK on both engines: `addConversationMark` and
 * `removeConversationMark` put and take one of the marks 0–19 on up to 20 conversations, the
 * server list (`getServerConversations`) shows each conversation's marks, and
 * `getServerConversationsByFilter` lists the conversations carrying a mark, latest first, paged
 * with the list's cursor. Marks are the user's own; bad input (an unknown mark, too many or a bad
 * conversation, a cursor that does not decode) is 400 `illegal_argument` naming the field with
 * nothing written; another user's marks are 403 (the app token may act for any user). The core
 * case with `agora-chat` too.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeClock } from '../../helpers/clock.js';
import { call } from '../../helpers/app.js';
import { assertNoForeignRequests, type SdkClient } from '../../helpers/easemob-sdk.js';
import { ENGINES } from '../../helpers/engines.js';
import { msyncWorld, type MsyncWorld } from '../../helpers/msync.js';

interface Conversation {
  conversationId: string;
  conversationType: string;
  marks?: number[];
}
type Target = { conversationId: string; conversationType: 'singleChat' | 'groupChat' };

describe.each(ENGINES)('conversation marks with the Easemob Web SDK on %s', (engine) => {
  let w: MsyncWorld;
  let ann: SdkClient;
  let groupId: string;
  const chat = (id: string): Target => ({ conversationId: id, conversationType: 'singleChat' });
  const group = (): Target => ({ conversationId: groupId, conversationType: 'groupChat' });

  async function rest(from: string, to: string, msg: string, target: 'users' | 'chatgroups' = 'users'): Promise<void> {
    const res = await w.api('POST', `/messages/${target}`, { from, to: [to], type: 'txt', body: { msg } });
    expect(res.status).toBe(200);
    (w.t.clock as FakeClock).advance(1000);
  }
  /** Each listed conversation's id and marks, latest first. */
  async function marksOf(client = ann): Promise<Array<[string, number[]]>> {
    const res = await client.conn.getServerConversations({ pageSize: 20 });
    return (res.data.conversations as Conversation[]).map((c) => [c.conversationId, c.marks ?? []]);
  }
  async function byMark(mark: number, pageSize = 10, cursor = '', client = ann): Promise<{ ids: string[]; cursor: string }> {
    const res = await client.conn.getServerConversationsByFilter({ pageSize, cursor, filter: { mark } });
    return { ids: (res.data.conversations as Conversation[]).map((c) => c.conversationId), cursor: res.data.cursor };
  }
  const mark = (to: string, body: unknown, method: 'POST' | 'DELETE' = 'POST', token?: string) =>
    token ? call(w.t.app, token, method, `${w.im.base}/sdk/user/${to}/user_channels/mark?resource=web`, body) : w.api(method, `/sdk/user/${to}/user_channels/mark?resource=web`, body);

  beforeAll(async () => {
    w = await msyncWorld(engine, ['ann', 'ben', 'cat', 'dan', 'eve'], { env: { PARLEY_IM_RATE_LIMIT: '100000' } });
    groupId = (await w.api('POST', '/chatgroups', { groupname: 'team', public: true, owner: 'ann', members: ['ben', 'cat'] })).body.data.groupid;
    await rest('ben', 'ann', 'b1');
    await rest('cat', 'ann', 'c1');
    await rest('ben', groupId, 'g1', 'chatgroups');
    await rest('ben', 'dan', 'd1');
    ann = await w.login('ann');
  });
  afterAll(async () => w?.close());
  afterEach(() => assertNoForeignRequests());

  it('addConversationMark marks conversations: the list shows each one’s marks, the filter lists a mark’s, paged latest first', async () => {
    expect(await marksOf()).toEqual([[groupId, []], ['cat', []], ['ben', []]]);
    await ann.conn.addConversationMark({ conversations: [chat('ben'), group()], mark: 0 });
    await ann.conn.addConversationMark({ conversations: [chat('ben')], mark: 19 });
    await ann.conn.addConversationMark({ conversations: [chat('ben')], mark: 3 });
    // Marking again changes nothing.
    await ann.conn.addConversationMark({ conversations: [chat('ben')], mark: 3 });
    expect(await marksOf()).toEqual([[groupId, [0]], ['cat', []], ['ben', [0, 3, 19]]]);
    const first = await byMark(0, 1);
    expect(first.ids).toEqual([groupId]);
    expect(first.cursor).not.toBe('');
    expect(await byMark(0, 1, first.cursor)).toEqual({ ids: ['ben'], cursor: '' });
    expect(await byMark(3)).toEqual({ ids: ['ben'], cursor: '' });
    expect(await byMark(7)).toEqual({ ids: [], cursor: '' });
    // The filtered list carries the same fields as the list.
    const [g] = (await ann.conn.getServerConversationsByFilter({ pageSize: 10, filter: { mark: 0 } })).data.conversations;
    expect(g).toMatchObject({ conversationId: groupId, conversationType: 'groupChat', marks: [0], lastMessage: { msg: 'g1' } });
  });

  it('removeConversationMark takes one mark off and keeps the others; marks are the user’s own', async () => {
    await ann.conn.removeConversationMark({ conversations: [chat('ben'), group()], mark: 0 });
    expect(await marksOf()).toEqual([[groupId, []], ['cat', []], ['ben', [3, 19]]]);
    expect(await byMark(0)).toEqual({ ids: [], cursor: '' });
    expect(await byMark(19)).toEqual({ ids: ['ben'], cursor: '' });
    // Removing a mark a conversation does not carry changes nothing.
    await ann.conn.removeConversationMark({ conversations: [chat('cat')], mark: 5 });
    expect((await marksOf()).find(([id]) => id === 'cat')).toEqual(['cat', []]);
    // A later message keeps the marks.
    await rest('ben', 'ann', 'b2');
    expect((await marksOf())[0]).toEqual(['ben', [3, 19]]);
    const ben = await w.login('ben');
    expect((await marksOf(ben)).find(([id]) => id === 'ann')).toEqual(['ann', []]);
    expect(await byMark(3, 10, '', ben)).toEqual({ ids: [], cursor: '' });
    ben.close();
  });

  it('refuses an unknown mark, too many or a bad conversation, and a cursor that does not decode, writing nothing', async () => {
    const token = await w.token('dan');
    const targets = [{ type: 'chat', to: 'ann' }];
    for (const bad of ['mark_20', 'mark_01', 'mark_-1', 'star', '3', 'mark_']) {
      const res = await mark('dan', { mark: bad, targets }, 'POST', token);
      expect(res.status, bad).toBe(400);
      expect(res.body, bad).toMatchObject({ error: 'illegal_argument' });
      expect(res.body.error_description, bad).toContain('mark');
    }
    const tooMany = Array.from({ length: 21 }, (_, i) => ({ type: 'chat', to: `u${i}` }));
    const many = await mark('dan', { mark: 'mark_1', targets: tooMany }, 'POST', token);
    expect(many.status).toBe(400);
    expect(many.body.error_description).toContain('targets');
    const twenty = await mark('dan', { mark: 'mark_1', targets: tooMany.slice(0, 20) }, 'POST', token);
    expect(twenty.status).toBe(200);
    expect(twenty.body.data).toEqual({ ignore: [] });
    const none = await mark('dan', { mark: 'mark_1', targets: [] }, 'POST', token);
    expect(none.status).toBe(400);
    expect(none.body.error_description).toContain('targets');
    // A group that is not a group id: nothing is written, not even the good conversation before it.
    const badGroup = await mark('dan', { mark: 'mark_2', targets: [{ type: 'chat', to: 'ben' }, { type: 'groupchat', to: 'team' }] }, 'POST', token);
    expect(badGroup.status).toBe(400);
    expect(badGroup.body).toMatchObject({ error: 'illegal_argument' });
    expect(badGroup.body.error_description).toContain('targets[1].to');
    const search = (query: string) => call(w.t.app, token, 'GET', `${w.im.base}/sdk/user/dan/user_channels/mark/search?${query}`);
    expect((await search('mark=mark_2&limit=10')).body.data.channel_infos).toEqual([]);
    const good = await mark('dan', { mark: 'mark_2', targets: [{ type: 'chat', to: 'ben' }] }, 'POST', token);
    expect(good.status).toBe(200);
    expect((await search('mark=mark_2&limit=10')).body.data.channel_infos.map((c: { session_to: string }) => c.session_to)).toEqual(['ben']);
    const badCursor = await search('mark=mark_1&limit=10&cursor=zz');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body).toMatchObject({ error: 'illegal_argument' });
    expect(badCursor.body.error_description).toContain('cursor');
    const badMark = await search('mark=mark_25&limit=10');
    expect(badMark.status).toBe(400);
    expect(badMark.body.error_description).toContain('mark');
    const noMark = await search('limit=10');
    expect(noMark.status).toBe(400);
    expect(noMark.body.error_description).toContain('mark');
    const infinite = await search('mark=mark_1&limit=Infinity');
    expect(infinite.status).toBe(400);
    expect(infinite.body.error_description).toContain('limit');
    // Text no database may store is refused before anything is written, on both engines.
    const nul = await mark('dan', { mark: 'mark_2', targets: [{ type: 'chat', to: 'a\u0000b' }] }, 'POST', token);
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ error: 'illegal_argument' });
  });

  it('another user’s marks are refused; the app token may mark for any user', async () => {
    const annToken = await w.token('ann');
    const foreign = await mark('ben', { mark: 'mark_4', targets: [{ type: 'chat', to: 'ann' }] }, 'POST', annToken);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ error: 'forbidden_op' });
    const foreignSearch = await call(w.t.app, annToken, 'GET', `${w.im.base}/sdk/user/ben/user_channels/mark/search?mark=mark_4`);
    expect(foreignSearch.status).toBe(403);
    expect(foreignSearch.body).toMatchObject({ error: 'forbidden_op' });
    const asAdmin = await mark('ben', { mark: 'mark_4', targets: [{ type: 'chat', to: 'ann' }, { type: 'groupchat', to: groupId }] });
    expect(asAdmin.status).toBe(200);
    const listed = await w.api('GET', '/sdk/user/ben/user_channels/mark/search?mark=mark_4&limit=10');
    expect(listed.body.data.channel_infos.map((c: { session_to: string; marks: string[] }) => [c.session_to, c.marks])).toEqual([
      ['ann', ['mark_4']],
      [groupId, ['mark_4']],
    ]);
    const removed = await mark('ben', { mark: 'mark_4', targets: [{ type: 'chat', to: 'ann' }] }, 'DELETE');
    expect(removed.status).toBe(200);
    const after = await w.api('GET', '/sdk/user/ben/user_channels/mark/search?mark=mark_4&limit=10');
    expect(after.body.data.channel_infos.map((c: { session_to: string }) => c.session_to)).toEqual([groupId]);
  });

  it('agora-chat marks, lists by mark and unmarks the same way', async () => {
    await rest('ben', 'eve', 'e1');
    await rest('cat', 'eve', 'e2');
    const eve = await w.login('eve', 'agora-chat');
    await eve.conn.addConversationMark({ conversations: [chat('ben'), chat('cat')], mark: 1 });
    expect(await marksOf(eve)).toEqual([['cat', [1]], ['ben', [1]]]);
    const first = await byMark(1, 1, '', eve);
    expect(first.ids).toEqual(['cat']);
    expect(await byMark(1, 1, first.cursor, eve)).toEqual({ ids: ['ben'], cursor: '' });
    await eve.conn.removeConversationMark({ conversations: [chat('cat')], mark: 1 });
    expect(await byMark(1, 10, '', eve)).toEqual({ ids: ['ben'], cursor: '' });
    expect(await marksOf(eve)).toEqual([['cat', []], ['ben', [1]]]);
  });
});
