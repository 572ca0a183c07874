import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, createTenant, createTestApp, login, type TestApp } from '../helpers/app.js';
import { createAssociation, customerMessage, postRaw, sendCustomerMessage, type TestAssociation } from '../helpers/channel.js';
import type { FakeClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';

/**
 * Each suite runs over a real socket, where the send-message lane in front of Fastify serves the
 * route (as in production), and through inject(), where Fastify's route does: both must hold.
 */
const TRANSPORTS = ENGINES.flatMap((engine) => [[engine, 'socket'] as const, [engine, 'inject'] as const]);

describe.each(TRANSPORTS)('send-message API on %s over %s', (engine, transport) => {
  let t: TestApp;
  let root: string;
  let tenant: { tenantId: number; adminToken: string; defaultQueueId: string };
  let assoc: TestAssociation;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000' } });
    if (transport === 'socket') await t.app.listen({ port: 0, host: '127.0.0.1' });
    root = await login(t.app, ADMIN.username, ADMIN.password);
    tenant = await createTenant(t.app, root, 'Ingest');
    assoc = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
  });
  afterAll(async () => t?.close());

  const countMessages = async () =>
    Number((await t.app.parley.storage.db.selectFrom('channel_messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('accepts a signed message with the spec content type and stores it before answering', async () => {
    const res = await postRaw(t.app, assoc, customerMessage({ from: 'c-1', msg_id: 'm-1', text: '你好' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'OK', entity: { msg_id: 'm-1', conversation_id: expect.any(Number), duplicate: false } });
    const stored = await t.app.parley.storage.db.selectFrom('channel_messages').selectAll().where('msg_id', '=', 'm-1').executeTakeFirstOrThrow();
    expect(JSON.parse(stored.bodies)).toEqual([{ type: 'txt', msg: '你好' }]);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; utf-8'])('accepts Content-Type %s', async (contentType) => {
    const res = await postRaw(t.app, assoc, customerMessage({ from: 'c-ct' }), { contentType });
    expect(res.status).toBe(200);
  });

  it('refuses other content types with 415', async () => {
    const res = await postRaw(t.app, assoc, customerMessage({ from: 'c-ct' }), { contentType: 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.body.errorCode).toBe('unsupported_media_type');
  });

  it('generates a msg_id when none is given', async () => {
    const res = await postRaw(t.app, assoc, customerMessage({ from: 'c-gen' }));
    expect(res.status).toBe(200);
    expect(res.body.entity.msg_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('stores a duplicate msg_id once and says duplicate:true', async () => {
    const first = await sendCustomerMessage(t.app, assoc, { from: 'c-dup', msg_id: 'dup-1', text: 'one' });
    const before = await countMessages();
    const again = await sendCustomerMessage(t.app, assoc, { from: 'c-dup', msg_id: 'dup-1', text: 'one' });
    expect(again).toEqual({ msg_id: 'dup-1', conversation_id: first.conversation_id, duplicate: true });
    expect(await countMessages()).toBe(before);
  });

  it('treats a msg_id seen on the association as a duplicate even from a customer never seen before', async () => {
    const first = await sendCustomerMessage(t.app, assoc, { from: 'c-dup-a', msg_id: 'dup-shared', text: 'one' });
    const before = await countMessages();
    const again = await sendCustomerMessage(t.app, assoc, { from: 'c-dup-new', msg_id: 'dup-shared', text: 'one' });
    expect(again).toEqual({ msg_id: 'dup-shared', conversation_id: first.conversation_id, duplicate: true });
    expect(await countMessages()).toBe(before);
    const visitors = await t.app.parley.storage.db.selectFrom('channel_visitors').select('id').where('customer_id', '=', 'c-dup-new').execute();
    expect(visitors).toEqual([]);
  });

  it('stores concurrent duplicates once', async () => {
    const before = await countMessages();
    const results = await Promise.all(Array.from({ length: 8 }, () => postRaw(t.app, assoc, customerMessage({ from: 'c-race-dup', msg_id: 'race-dup' }))));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(results.filter((r) => r.body.entity.duplicate === false)).toHaveLength(1);
    expect(await countMessages()).toBe(before + 1);
  });

  it('opens exactly one conversation for concurrent first messages of a new customer', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postRaw(t.app, assoc, customerMessage({ from: 'c-race-new', msg_id: `race-${i}` }))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.body.entity.conversation_id)).size).toBe(1);
    const open = await t.app.parley.storage.db
      .selectFrom('conversations')
      .select('id')
      .where('customer_id', '=', 'c-race-new')
      .where('channel_id', '=', assoc.channelId)
      .execute();
    expect(open).toHaveLength(1);
  });

  describe('authentication (401)', () => {
    it('missing Authorization: missing_authorization', async () => {
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { authorization: null });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('missing_authorization');
    });
    it.each(['Bearer abc', 'hmac nocolon', 'hmac :sig', 'basic a:b'])('malformed Authorization "%s": missing_authorization', async (authorization) => {
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { authorization });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('missing_authorization');
    });
    it('unknown Client ID: invalid_client', async () => {
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { clientId: '00000000-0000-4000-8000-000000000000' });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('invalid_client');
    });
    it("another association's Client ID: invalid_client", async () => {
      const other = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/other');
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { clientId: other.clientId, secret: other.clientSecret });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('invalid_client');
    });
    it('wrong secret: invalid_signature', async () => {
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { secret: 'f'.repeat(32) });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('invalid_signature');
    });
    it('body changed after signing (one byte): invalid_signature', async () => {
      const body = customerMessage({ from: 'x', text: 'original' });
      const res = await postRaw(t.app, assoc, body, { payload: body.replace('original', 'originaL') });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('invalid_signature');
    });
    it('re-serialised JSON (spaces) no longer matches: the raw bytes are what is signed', async () => {
      const body = customerMessage({ from: 'x' });
      const res = await postRaw(t.app, assoc, body, { payload: JSON.stringify(JSON.parse(body), null, 1) });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('invalid_signature');
    });
    it('signature over another path: invalid_signature', async () => {
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { signedPath: '/api/tenants/1/rest/channels/1/messages' });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('invalid_signature');
    });
    it('X-Auth-Expires in the past: signature_expired; in the future, 0 or negative: accepted', async () => {
      const past = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { expires: t.clock.now() - 1 });
      expect(past.status).toBe(401);
      expect(past.body.errorCode).toBe('signature_expired');
      for (const expires of [t.clock.now() + 60_000, 0, -1]) {
        expect((await postRaw(t.app, assoc, customerMessage({ from: 'x-exp' }), { expires })).status).toBe(200);
      }
    });
    it('X-Auth-Expires is compared with the app clock: the same signature expires once that clock passes it', async () => {
      const clock = t.clock as FakeClock;
      // Ten minutes ahead of the app clock, and still ahead of the system clock when the request is refused.
      const expires = clock.now() + 10 * 60_000;
      const body = customerMessage({ from: 'x-clock', msg_id: 'x-clock-1' });
      expect((await postRaw(t.app, assoc, body, { expires })).status).toBe(200);
      clock.advance(10 * 60_000 + 1);
      expect(Date.now()).toBeLessThan(expires);
      const late = await postRaw(t.app, assoc, body, { expires });
      expect(late.status).toBe(401);
      expect(late.body.errorCode).toBe('signature_expired');
    });
    it('X-Auth-Expires missing or not a number: missing_authorization', async () => {
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { expires: 'soon' });
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('missing_authorization');
    });
  });

  describe('body rules (400 invalid_message naming the field)', () => {
    it.each([
      [{ bodies: [], origin_type: 'rest', from: 'c', timestamp: 1 }, 'bodies'],
      [{ bodies: [{ type: 'loc' }], origin_type: 'rest', from: 'c', timestamp: 1 }, 'bodies[0].type'],
      [{ bodies: [{ type: 'txt', msg: '' }], origin_type: 'rest', from: 'c', timestamp: 1 }, 'bodies[0].msg'],
      [{ bodies: [{ type: 'img', url: 'javascript:alert(1)', filename: 'a.png' }], origin_type: 'rest', from: 'c', timestamp: 1 }, 'bodies[0].url'],
      [{ bodies: [{ type: 'video', url: 'https://x.example/v.mp4' }], origin_type: 'rest', from: 'c', timestamp: 1 }, 'bodies[0].filename'],
      [{ bodies: [{ type: 'txt', msg: 'a' }], origin_type: 'web', from: 'c', timestamp: 1 }, 'origin_type'],
      [{ bodies: [{ type: 'txt', msg: 'a' }], origin_type: 'rest', from: '', timestamp: 1 }, 'from'],
      [{ bodies: [{ type: 'txt', msg: 'a' }], origin_type: 'rest', from: 'c', timestamp: 'now' }, 'timestamp'],
      [{ bodies: [{ type: 'txt', msg: 'a' }], origin_type: 'rest', from: 'c', timestamp: 1, ext: 'x' }, 'ext'],
    ])('%j -> %s', async (message, field) => {
      const res = await postRaw(t.app, assoc, JSON.stringify(message));
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('invalid_message');
      expect(res.body.errorDescription).toContain(field);
    });

    it('malformed JSON (correctly signed) is 400 invalid_json', async () => {
      const res = await postRaw(t.app, assoc, '{"bodies":');
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('invalid_json');
    });

    it('a body over 64 KiB is 413', async () => {
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'big', text: 'x'.repeat(65 * 1024) }));
      expect(res.status).toBe(413);
      expect(res.body.errorCode).toBe('payload_too_large');
    });

    it('a body just under 64 KiB is accepted', async () => {
      const shell = customerMessage({ from: 'big', text: '' }).length;
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'big', text: 'y'.repeat(64 * 1024 - shell - 10) }));
      expect(res.status).toBe(200);
    });
  });

  describe('addressing', () => {
    it('unknown tenant: 404', async () => {
      const url = `/api/tenants/999999/rest/channels/${assoc.channelId}/messages`;
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { url });
      expect(res.status).toBe(404);
      expect(res.body.errorCode).toBe('not_found');
    });
    it('unknown channel: 404', async () => {
      const url = `/api/tenants/${tenant.tenantId}/rest/channels/999999/messages`;
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { url });
      expect(res.status).toBe(404);
      expect(res.body.errorCode).toBe('not_found');
    });
    it('a standard-edition tenant: 403 edition_not_supported', async () => {
      const standard = await createTenant(t.app, root, 'StdIngest', 'standard');
      const url = `/api/tenants/${standard.tenantId}/rest/channels/${assoc.channelId}/messages`;
      const res = await postRaw(t.app, assoc, customerMessage({ from: 'x' }), { url });
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('edition_not_supported');
    });
  });

  it('keeps the visitor profile, updates it from later messages, and keeps cards with their message', async () => {
    const order = { title: 'Order', order_title: 'No. 42', price: '¥99', desc: 'shoes', img_url: 'https://x.example/i.png', item_url: 'https://x.example/i' };
    const first = await sendCustomerMessage(t.app, assoc, {
      from: 'c-profile',
      ext: { visitor: { user_nickname: 'Wang', phone: '123', tags: ['new'] }, msgtype: { order } },
    });
    await sendCustomerMessage(t.app, assoc, { from: 'c-profile', ext: { visitor: { phone: '456', email: 'w@example.com' } } });
    const conv = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/conversations/${first.conversation_id}`);
    expect(conv.body.entity.visitor).toMatchObject({ customer_id: 'c-profile', user_nickname: 'Wang', phone: '456', email: 'w@example.com', tags: ['new'] });
    const history = await call(t.app, tenant.adminToken, 'GET', `/api/tenants/${tenant.tenantId}/conversations/${first.conversation_id}/messages`);
    expect(history.body.entities).toHaveLength(2);
    expect(history.body.entities[0].ext.msgtype.order).toEqual(order);
    expect(history.body.entities[0]).toMatchObject({ direction: 'customer', from: 'c-profile' });
  });
});

describe.each(ENGINES)('send-message rate limit on %s', (engine) => {
  it('answers 429 rate_limited with Retry-After past the per-association rate, and stores nothing of it', async () => {
    const t = await createTestApp(engine, { env: { PARLEY_API_RATE_LIMIT: '100000', PARLEY_CHANNEL_RATE_LIMIT: '3' } });
    try {
      const root = await login(t.app, ADMIN.username, ADMIN.password);
      const tenant = await createTenant(t.app, root, 'Limited');
      const a = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
      const b = await createAssociation(t.app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook-b');
      const results: Array<{ status: number; body: { errorCode?: string }; headers: Record<string, unknown> }> = [];
      for (let i = 0; i < 6; i++) results.push(await postRaw(t.app, a, customerMessage({ from: 'c-rl', msg_id: `rl-${i}` })));
      const limited = results.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      expect(limited[0]?.body.errorCode).toBe('rate_limited');
      expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const accepted = results.filter((r) => r.status === 200).length;
      const stored = await t.app.parley.storage.db.selectFrom('channel_messages').select('msg_id').where('channel_id', '=', a.channelId).execute();
      expect(stored).toHaveLength(accepted);
      // Another association has its own budget.
      expect((await postRaw(t.app, b, customerMessage({ from: 'c-rl-b' }))).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
