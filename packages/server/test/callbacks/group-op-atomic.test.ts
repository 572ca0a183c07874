/**
 * A group operation and its `group_op_event` callback records commit together: the records' jobs
 * are written in the operation's own transaction (operation-events.ts), so an operation whose
 * write fails leaves no record behind, one whose record cannot be written is not written either
 * (a mute), and one that commits is called back. Both engines.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { CallbackReceiver } from '../helpers/callback-receiver.js';
import { ENGINES } from '../helpers/engines.js';
import { createImApp, createUsers, type ImAppHandle } from '../helpers/im.js';

/** Makes every insert of `carol` as a group member fail, as a write that breaks inside the operation. */
const REFUSE_CAROL = {
  sqlite: [`CREATE TRIGGER refuse_carol BEFORE INSERT ON im_members WHEN NEW.username = 'carol' BEGIN SELECT RAISE(ABORT, 'refused'); END`],
  postgres: [
    `CREATE FUNCTION refuse_carol() RETURNS trigger AS $$ BEGIN IF NEW.username = 'carol' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    `CREATE TRIGGER refuse_carol BEFORE INSERT ON im_members FOR EACH ROW EXECUTE FUNCTION refuse_carol()`,
  ],
};

/** Makes every write of a MUTE callback job fail, as a job write that breaks inside the operation. */
const REFUSE_MUTE_JOBS = {
  sqlite: [`CREATE TRIGGER refuse_mute_jobs BEFORE INSERT ON jobs WHEN NEW.payload LIKE '%"MUTE"%' BEGIN SELECT RAISE(ABORT, 'refused'); END`],
  postgres: [
    `CREATE FUNCTION refuse_mute_jobs() RETURNS trigger AS $$ BEGIN IF NEW.payload LIKE '%"MUTE"%' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    `CREATE TRIGGER refuse_mute_jobs BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION refuse_mute_jobs()`,
  ],
};
const ALLOW_MUTE_JOBS = { sqlite: ['DROP TRIGGER refuse_mute_jobs'], postgres: ['DROP TRIGGER refuse_mute_jobs ON jobs', 'DROP FUNCTION refuse_mute_jobs()'] };

describe.each(ENGINES)('group operation callbacks on %s', (engine) => {
  let t: TestApp;
  let im: ImAppHandle;
  let receiver: CallbackReceiver;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload);
  const records = async () => {
    await t.app.parley.jobs.idle();
    return receiver.bodies<{ operation: string; payload?: { member?: string[] }; member_count?: number }>();
  };

  beforeEach(async () => {
    t = await createTestApp(engine);
    im = await createImApp(t.app);
    await createUsers(t.app, im, 'alice', 'bob', 'carol');
    receiver = await CallbackReceiver.start();
    await api('PUT', '/callbacks/service', { enabled: true });
    expect((await api('POST', '/callbacks/rules', { name: 'groups', url: receiver.url, event_types: ['group_op_event'] })).status).toBe(200);
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  it('writes no record for an operation whose write fails, and one for an operation that commits', async () => {
    const gid = (await api('POST', '/chatgroups', { groupname: 'g', description: '', public: true, maxusers: 10, owner: 'alice', members: [] })).body.data.groupid as string;
    expect((await records()).map((r) => r.operation)).toEqual(['CREATE']);
    const jobsBefore = Number((await t.app.parley.storage.db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    for (const statement of REFUSE_CAROL[engine]) await sql.raw(statement).execute(t.app.parley.storage.db);
    const refused = await api('POST', `/chatgroups/${gid}/users/carol`);
    expect(refused.status).toBeGreaterThanOrEqual(500);
    // Neither the member nor a callback job: the operation's transaction was rolled back whole.
    const jobsAfter = Number((await t.app.parley.storage.db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(jobsAfter).toBe(jobsBefore);
    expect((await api('GET', `/chatgroups/${gid}/users`)).body.data.map((m: Record<string, string>) => m.member ?? m.owner)).toEqual(['alice']);
    expect((await records()).map((r) => r.operation)).toEqual(['CREATE']);

    expect((await api('POST', `/chatgroups/${gid}/users/bob`)).status).toBe(200);
    const after = await records();
    expect(after.map((r) => r.operation)).toEqual(['CREATE', 'JOIN']);
    expect(after[1]).toMatchObject({ payload: { member: ['bob'] }, member_count: 2 });
  });

  it('writes no mute whose callback job cannot be written: the mute and its MUTE record commit together', async () => {
    const gid = (await api('POST', '/chatgroups', { groupname: 'g', description: '', public: true, maxusers: 10, owner: 'alice', members: ['bob'] })).body.data.groupid as string;
    expect((await records()).map((r) => r.operation)).toEqual(['CREATE', 'JOIN']);

    for (const statement of REFUSE_MUTE_JOBS[engine]) await sql.raw(statement).execute(t.app.parley.storage.db);
    const refused = await api('POST', `/chatgroups/${gid}/mute`, { usernames: ['bob'], mute_duration: -1 });
    expect(refused.status).toBeGreaterThanOrEqual(500);
    // Neither the mute nor its record: the operation's transaction was rolled back whole.
    expect((await api('GET', `/chatgroups/${gid}/mute`)).body.data).toEqual([]);
    expect((await api('GET', `/sdk/chatgroups/${gid}/mute/bob`)).body.data).toBe(false);
    expect((await records()).map((r) => r.operation)).toEqual(['CREATE', 'JOIN']);

    for (const statement of ALLOW_MUTE_JOBS[engine]) await sql.raw(statement).execute(t.app.parley.storage.db);
    expect((await api('POST', `/chatgroups/${gid}/mute`, { usernames: ['bob'], mute_duration: -1 })).status).toBe(200);
    expect((await api('GET', `/chatgroups/${gid}/mute`)).body.data).toEqual([expect.objectContaining({ user: 'bob', expire: -1 })]);
    const after = await records();
    expect(after.map((r) => r.operation)).toEqual(['CREATE', 'JOIN', 'MUTE']);
    expect(after[2]).toMatchObject({ payload: { member: ['bob'], type: 'ADD' } });
  });
});
