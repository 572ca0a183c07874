/**
 * The pre-send callback over HTTP (contract 6.5) with the real IM core, a real pre-send receiver
 * and a real post-send receiver, on both engines: the rule endpoints, the signed record, a
 * refusal with the app's code (REST and JSON socket), the rule's signing key following a rotation,
 * a rewrite that post-send records carry, the rule's filters, failures under allow and reject
 * counted in metrics, the fail-closed acceptance case (a receiver that never answers), and edits
 * of sent messages asked about the same way (Easemob's edit record; refused, rewritten, fail-closed).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callbackSecurity, md5Hex, verifyStandardWebhook, type CallbackRecord, type PresendEditRecord, type PresendRecord } from '@parley/protocol';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, listen, SocketClient, userToken, waitFor, type ImAppHandle } from '../helpers/im.js';

/** Tests of what an answer does wait this long for it (a busy test machine); the timeout itself is tested with 200 ms. */
const SLOW_MACHINE_MS = 5_000;
const answer = (json: unknown) => ({ status: 200, body: JSON.stringify(json) });
const textOf = (record: CallbackRecord) => (record.payload.bodies[0] as { msg?: string } | undefined)?.msg;

describe.each(ENGINES)('pre-send callback on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let presend: CallbackReceiver;
  let postSend: CallbackReceiver;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, token: string | undefined = im.adminToken) =>
    call(t.app, token, method, `${im.base}${path}`, payload);
  const send = (msg: string, to = 'bob') => api('POST', '/messages/users', { from: 'alice', to: [to], type: 'txt', body: { msg } });
  const offlineCount = async (username: string) => (await api('GET', `/users/${username}/offline_msg_count`)).body.data[username] as number;
  const settle = async () => {
    await t.app.parley.jobs.idle();
  };
  const metric = async (name: string) => {
    const text = await t.app.parley.metrics.metrics();
    return text.split('\n').filter((l) => l.startsWith(name));
  };

  beforeEach(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob', 'carol');
    presend = await CallbackReceiver.start('/presend');
    postSend = await CallbackReceiver.start();
    await api('PUT', '/callbacks/service', { enabled: true, store_failed: false });
    await api('POST', '/callbacks/rules', { name: 'sync', url: postSend.url, event_types: ['chat'] });
    // The outbound worker thread loads before the first call, as at a real start (main.ts).
    await t.app.parley.outbound.warmUp?.();
  });
  afterEach(async () => {
    await t.close();
    await presend.close();
    await postSend.close();
  });

  it('manages rules: defaults, validation, 409, at most 4, read, change, new secret, delete, 404', async () => {
    const created = await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ path: '/callbacks/presend-rules', action: 'post' });
    expect(created.body.data).toEqual({
      name: 'mod',
      url: presend.url,
      timeout_ms: 200,
      on_failure: 'allow',
      chat_types: ['chat', 'groupchat'],
      message_types: ['txt', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'],
      secret: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    for (const [body, field] of [
      [{ name: 'bad name', url: presend.url }, 'name'],
      [{ name: 'ok', url: 'ftp://x' }, 'url'],
      [{ name: 'ok', url: presend.url, timeout_ms: 10 }, 'timeout_ms'],
      [{ name: 'ok', url: presend.url, timeout_ms: 60_000 }, 'timeout_ms'],
      [{ name: 'ok', url: presend.url, on_failure: 'maybe' }, 'on_failure'],
      [{ name: 'ok', url: presend.url, chat_types: [] }, 'chat_types'],
      [{ name: 'ok', url: presend.url, message_types: ['gif'] }, 'message_types'],
    ] as const) {
      const res = await api('POST', '/callbacks/presend-rules', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('illegal_argument');
      expect(res.body.error_description).toContain(field);
    }
    expect((await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url })).status).toBe(409);
    for (const name of ['r2', 'r3', 'r4']) expect((await api('POST', '/callbacks/presend-rules', { name, url: presend.url })).status).toBe(200);
    expect((await api('POST', '/callbacks/presend-rules', { name: 'r5', url: presend.url })).body.error).toBe('callback_rule_limit');
    expect((await api('GET', '/callbacks/presend-rules')).body.entities.map((r: { name: string }) => r.name)).toEqual(['mod', 'r2', 'r3', 'r4']);

    const changed = await api('PUT', '/callbacks/presend-rules/mod', { timeout_ms: 300, on_failure: 'reject', chat_types: ['chat'] });
    expect(changed.body.data).toMatchObject({ timeout_ms: 300, on_failure: 'reject', chat_types: ['chat'], secret: created.body.data.secret });
    const rotated = await api('POST', '/callbacks/presend-rules/mod/secret');
    expect(rotated.body.data.secret).toMatch(/^[0-9a-f]{32}$/);
    expect(rotated.body.data.secret).not.toBe(created.body.data.secret);
    expect((await api('GET', '/callbacks/presend-rules/mod')).body.data.secret).toBe(rotated.body.data.secret);
    expect((await api('DELETE', '/callbacks/presend-rules/mod')).body.data.name).toBe('mod');
    const gone = await api('GET', '/callbacks/presend-rules/mod');
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe('service_resource_not_found');
    expect((await api('PUT', '/callbacks/presend-rules/mod', { timeout_ms: 300 })).status).toBe(404);
    expect((await api('GET', '/callbacks/presend-rules', undefined, await userToken(t.app, im, 'alice'))).status).toBe(403);
  });

  it('posts the signed pre-send record; valid:false refuses with the app code: nothing delivered or called back', async () => {
    const rule = (await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url, timeout_ms: SLOW_MACHINE_MS })).body.data as { secret: string };
    presend.respond = (req) => (req.body.includes('spam') ? answer({ valid: false, code: 'HX:10001 spam' }) : answer({ valid: true }));

    const sent = await send('hello');
    expect(sent.status).toBe(200);
    const [request] = presend.requests;
    const record = JSON.parse(request!.body) as PresendRecord & { security: string };
    expect(record).toMatchObject({ chat_type: 'chat', from: 'alice', to: 'bob', msg_id: sent.body.data.bob, payload: { bodies: [{ type: 'txt', msg: 'hello' }], ext: {} } });
    expect(record.callId).toMatch(new RegExp(`^${im.org}#${im.name}_`));
    expect(record.security).toBe(callbackSecurity(record.callId, rule.secret, record.timestamp));
    expect(request!.headers['x-callback-body-md5']).toBe(md5Hex(request!.body));
    const headers = request!.headers as Record<string, string>;
    expect(verifyStandardWebhook(rule.secret, headers, request!.body, { nowSeconds: Number(headers['webhook-timestamp']) })).toBe(true);

    const refused = await send('buy spam');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden_op', error_description: 'HX:10001 spam' });
    await settle();
    expect(await offlineCount('bob')).toBe(1);
    expect(postSend.bodies<CallbackRecord>().map(textOf)).toEqual(['hello']);
  });

  it("signs with the rule's key made once, and with the new secret from the first check after a rotation or a change", async () => {
    const old = (await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url, timeout_ms: SLOW_MACHINE_MS })).body.data.secret as string;
    presend.respond = () => answer({ valid: true });
    const signedBy = (i: number) => {
      const request = presend.requests[i]!;
      const headers = request.headers as Record<string, string>;
      const record = JSON.parse(request.body) as PresendRecord & { security: string };
      const ok = (secret: string) =>
        record.security === callbackSecurity(record.callId, secret, record.timestamp) &&
        verifyStandardWebhook(secret, headers, request.body, { nowSeconds: Number(headers['webhook-timestamp']) });
      return { ok, signatures: headers['webhook-signature']!.split(' ').length };
    };
    // Two checks with the cached rule and its key.
    expect((await send('one')).status).toBe(200);
    expect((await send('two')).status).toBe(200);
    expect([signedBy(0).ok(old), signedBy(1).ok(old)]).toEqual([true, true]);

    const fresh = (await api('POST', '/callbacks/presend-rules/mod/secret')).body.data.secret as string;
    expect(fresh).not.toBe(old);
    expect((await send('three')).status).toBe(200);
    expect(signedBy(2)).toMatchObject({ signatures: 1 });
    expect([signedBy(2).ok(fresh), signedBy(2).ok(old)]).toEqual([true, false]);

    // A change of another field reads the rule again; it keeps signing with the current secret.
    expect((await api('PUT', '/callbacks/presend-rules/mod', { timeout_ms: SLOW_MACHINE_MS - 1 })).status).toBe(200);
    expect((await send('four')).status).toBe(200);
    expect([signedBy(3).ok(fresh), signedBy(3).ok(old)]).toEqual([true, false]);
    expect(presend.requests).toHaveLength(4);
  });

  it('a payload rewrites the text: the receiver and the post-send record get the rewritten message', async () => {
    await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url, timeout_ms: SLOW_MACHINE_MS });
    presend.respond = () => answer({ valid: true, payload: { bodies: [{ type: 'txt', msg: 'h***o' }], ext: { moderated: true } } });
    const url = await listen(t.app);
    const bob = await SocketClient.connect(url, im.base, await userToken(t.app, im, 'bob'));
    try {
      expect((await send('hello')).status).toBe(200);
      const frame = await bob.waitText('h***o');
      expect(frame.payload.ext).toEqual({ moderated: true });
      await settle();
      const [record] = postSend.bodies<CallbackRecord>();
      expect(record?.payload).toEqual({ bodies: [{ type: 'txt', msg: 'h***o' }], ext: { moderated: true } });
    } finally {
      await bob.close();
    }
  });

  it('refuses a JSON socket send with an error frame naming the code; filters skip what the rule does not cover', async () => {
    await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url, timeout_ms: SLOW_MACHINE_MS, chat_types: ['chat'], message_types: ['txt'] });
    presend.respond = () => answer({ valid: false, code: 'not today' });
    const url = await listen(t.app);
    const carol = await SocketClient.connect(url, im.base, await userToken(t.app, im, 'carol'));
    try {
      const denied = await carol.request({ op: 'send', id: 's1', chat_type: 'chat', to: 'alice', bodies: [{ type: 'txt', msg: 'hi' }], ext: {} });
      expect(denied).toMatchObject({ op: 'error', id: 's1', error: 'forbidden_op', error_description: 'not today' });
      const cmd = await carol.request({ op: 'send', id: 's2', chat_type: 'chat', to: 'alice', bodies: [{ type: 'cmd', action: 'ping' }], ext: {} });
      expect(cmd.op).toBe('ack');
      const group = await api('POST', '/chatgroups', { groupname: 'g', public: true, owner: 'carol', members: ['alice'] });
      const inGroup = await carol.request({ op: 'send', id: 's3', chat_type: 'groupchat', to: group.body.data.groupid, bodies: [{ type: 'txt', msg: 'hi all' }], ext: {} });
      expect(inGroup.op).toBe('ack');
      expect(presend.requests).toHaveLength(1);
    } finally {
      await carol.close();
    }
  });

  it('failures follow on_failure and are counted with their latency', async () => {
    await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url, timeout_ms: SLOW_MACHINE_MS, on_failure: 'allow' });
    presend.respond = () => ({ status: 200, body: 'not json' });
    expect((await send('one')).status).toBe(200);
    presend.respond = () => answer({ valid: true, pad: 'x'.repeat(1000) });
    expect((await send('two')).status).toBe(200);
    await api('PUT', '/callbacks/presend-rules/mod', { on_failure: 'reject' });
    presend.respond = () => answer({ valid: false, code: 7 });
    const refused = await send('three');
    expect(refused.status).toBe(403);
    expect(refused.body.error_description).toBe('custom internal error');
    presend.respond = () => ({ status: 500, body: '' });
    expect((await send('four')).status).toBe(403);
    await settle();
    expect(postSend.bodies<CallbackRecord>().map(textOf).sort()).toEqual(['one', 'two']);
    const calls = await metric('parley_presend_calls_total');
    expect(calls).toContain('parley_presend_calls_total{outcome="failed_allowed",reason="not_json"} 1');
    expect(calls).toContain('parley_presend_calls_total{outcome="failed_allowed",reason="too_long"} 1');
    expect(calls).toContain('parley_presend_calls_total{outcome="failed_rejected",reason="bad_answer"} 1');
    expect(calls).toContain('parley_presend_calls_total{outcome="failed_rejected",reason="status"} 1');
    expect(await metric('parley_presend_duration_seconds_count')).toContain('parley_presend_duration_seconds_count{outcome="failed_allowed"} 2');
  });

  it('fail-closed with a receiver that never answers: the sender gets the error within the timeout plus 50 ms, nothing is delivered or called back', async () => {
    await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url, on_failure: 'reject', timeout_ms: 200 });
    presend.respond = () => 'hang';
    // The first refusal of a process compiles its path; the one measured is the steady state.
    expect((await send('warm up')).status).toBe(403);
    const started = performance.now();
    const refused = await send('never answered');
    const elapsed = performance.now() - started;
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden_op', error_description: 'custom internal error' });
    expect(elapsed).toBeLessThan(250);
    expect(elapsed).toBeGreaterThanOrEqual(190);
    await settle();
    expect(await offlineCount('bob')).toBe(0);
    expect(postSend.requests).toHaveLength(0);
    expect(await metric('parley_presend_calls_total')).toContain('parley_presend_calls_total{outcome="failed_rejected",reason="timeout"} 2');
  });

  it('an edit is asked about as Easemob edit record: a refusal leaves the message as it was, a rewrite is what receivers get and what is stored, fail-closed refuses', async () => {
    await api('POST', '/callbacks/presend-rules', { name: 'mod', url: presend.url, timeout_ms: SLOW_MACHINE_MS, message_types: ['txt'] });
    presend.respond = (req) => {
      const text = (JSON.parse(req.body) as PresendRecord).payload.bodies[0]?.msg as string;
      if (text.includes('spam')) return answer({ valid: false, code: 'no spam in edits' });
      return answer(text.includes('darn') ? { valid: true, payload: { bodies: [{ type: 'txt', msg: text.replace('darn', '****') }] } } : { valid: true });
    };
    const stored = async (msgId: string) => {
      const row = await t.app.parley.storage.db.selectFrom('im_messages').select('payload').where('msg_id', '=', msgId as never).executeTakeFirstOrThrow();
      return (JSON.parse(row.payload) as { bodies: Array<{ msg: string }> }).bodies[0]?.msg;
    };
    const url = await listen(t.app);
    const [alice, bob] = await Promise.all([SocketClient.connect(url, im.base, await userToken(t.app, im, 'alice')), SocketClient.connect(url, im.base, await userToken(t.app, im, 'bob'))]);
    try {
      const sent = await send('helo');
      const msgId = sent.body.data.bob as string;
      await bob.waitText('helo');
      const edit = (id: string, msg: string) => alice.request({ op: 'edit', id, msg_id: msgId, body: { type: 'txt', msg } });

      const refused = await edit('e1', 'buy spam');
      expect(refused).toMatchObject({ op: 'error', id: 'e1', error: 'forbidden_op', error_description: 'no spam in edits' });
      expect(await stored(msgId)).toBe('helo');

      expect((await edit('e2', 'oh darn')).op).toBe('ack');
      const frame = await waitFor(() => bob.of('edit').find((f) => f.msg_id === msgId), Boolean);
      expect(frame).toMatchObject({ count: 1, payload: { bodies: [{ type: 'txt', msg: 'oh ****' }] } });
      expect(bob.of('edit')).toHaveLength(1);
      expect(await stored(msgId)).toBe('oh ****');

      const records = presend.bodies<PresendEditRecord>().slice(1);
      expect(records).toHaveLength(2);
      expect(records[1]).toMatchObject({
        chat_type: 'edit',
        from: 'alice',
        to: 'bob',
        msg_id: frame!.id,
        timestamp: frame!.edit_time,
        payload: {
          type: 'edit',
          edit_message_id: msgId,
          bodies: [{ type: 'txt', msg: 'oh darn' }],
          ext: {},
          meta: { edit_msg: { chat_type: 'chat:user', send_time: frame!.timestamp, edit_time: frame!.edit_time, sender: 'alice', operator: 'alice' } },
        },
      });

      await api('PUT', '/callbacks/presend-rules/mod', { on_failure: 'reject' });
      presend.respond = () => ({ status: 500, body: '' });
      expect(await edit('e3', 'fine')).toMatchObject({ op: 'error', error: 'forbidden_op', error_description: 'custom internal error' });
      expect(await stored(msgId)).toBe('oh ****');
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
