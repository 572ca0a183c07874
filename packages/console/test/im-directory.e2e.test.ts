/**
 * The IM users and groups page in a real Chromium against a real server: users, groups and chat
 * rooms are lists read a page at a time (20, then "Show more"), searched by a part of the name
 * (the server's `q`), and edited in place: a user's nickname and password, a group's name,
 * description, maxusers and public flag, a chat room's name, description and maxusers; members
 * added and removed; a user deleted after a confirmation. Every change is checked on the server.
 * The forms' labels say what they are ("Group name", not "Groups name"). Screenshots
 * `im-directory*.png`.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, type TestApp } from '../../server/test/helpers/app.js';
import { createImApp, createUsers, PASSWORD, type ImAppHandle } from '../../server/test/helpers/im.js';
import { launchChromium, newPage, screenshot, startServer, unlabelledControls, type PageProblems } from './helpers/browser.js';

const USERS = Array.from({ length: 25 }, (_, i) => `user-${String(i + 1).padStart(2, '0')}`);

describe('IM users, groups and chat rooms in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: { t: TestApp; baseUrl: string };
  let im: ImAppHandle;
  let page: Page;
  let problems: PageProblems;
  let groupId: string;
  let roomId: string;
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => call(server.t.app, im.adminToken, method, `${im.base}${path}`, body);
  const rows = (table: string) => page.getByRole('table', { name: table }).locator('tbody tr');
  const firstCells = async (table: string) => (await rows(table).locator('td:first-child').allTextContents()).filter((t) => t !== '');

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer({ PARLEY_IM_RATE_LIMIT: '100000' });
    im = await createImApp(server.t.app, 'acme', 'shop');
    await createUsers(server.t.app, im, ...USERS);
    expect((await api('PUT', '/users/user-07', { nickname: 'Refund desk' })).status).toBe(200);
    groupId = (await api('POST', '/chatgroups', { groupname: 'Support one', description: 'First line', public: true, owner: 'user-01', members: ['user-02'] })).body.data.groupid;
    await api('POST', '/chatgroups', { groupname: 'Sales', public: true, owner: 'user-03' });
    roomId = (await api('POST', '/chatrooms', { name: 'Launch day', description: 'Live questions', owner: 'user-04' })).body.data.id;

    ({ page, problems } = await newPage(browser));
    await page.goto(`${server.baseUrl}/console/im-directory`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'IM apps' }).getByRole('button', { name: 'Open acme#shop' }).click();
    await rows('Users').first().waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.t.close();
  });

  afterEach(() => {
    expect(problems.list()).toEqual([]);
  });

  it('lists users 20 at a time, then the rest with "Show more", and says what each field is', async () => {
    await expect.poll(() => rows('Users').count()).toBe(20);
    expect(await firstCells('Users')).toEqual(USERS.slice(0, 20));
    await page.getByRole('button', { name: 'Show more users' }).click();
    await expect.poll(() => rows('Users').count()).toBe(25);
    expect(await firstCells('Users')).toEqual(USERS);
    expect(await page.getByRole('button', { name: 'Show more users' }).count()).toBe(0);
    // Labels name one thing each: no "Groups name" or "Chat rooms owner".
    const labels = await page.locator('label').allTextContents();
    expect(labels.filter((l) => /^(Groups|Chat rooms) /.test(l))).toEqual([]);
    expect(await page.getByRole('form', { name: 'Create a group' }).getByLabel('Group name', { exact: true }).count()).toBe(1);
    expect(await page.getByRole('form', { name: 'Create a chat room' }).getByLabel('Chat room name', { exact: true }).count()).toBe(1);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'im-directory');
  });

  it('finds users by a part of the username or nickname, and shows all again', async () => {
    const search = page.getByRole('search', { name: 'Find users' });
    await search.getByLabel('Search users').fill('REFUND');
    await search.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => firstCells('Users')).toEqual(['user-07']);
    await search.getByLabel('Search users').fill('nobody');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No users match “nobody”').waitFor();
    await search.getByRole('button', { name: 'Show all' }).click();
    await expect.poll(() => rows('Users').count()).toBe(20);
  });

  it("edits a user's nickname and password in place, and deletes a user after a confirmation", async () => {
    const row = rows('Users').filter({ hasText: 'user-07' });
    await row.getByRole('button', { name: 'Edit user user-07' }).click();
    const form = page.getByRole('form', { name: 'Edit user user-07' });
    await form.getByLabel('Nickname of user-07').fill('Returns desk');
    await form.getByLabel('New password for user-07').fill('new-pass-42');
    await form.getByRole('button', { name: 'Save user-07' }).click();
    await page.getByRole('status').filter({ hasText: 'User user-07: nickname and password saved.' }).waitFor();
    await rows('Users').filter({ hasText: 'Returns desk' }).waitFor();
    expect((await api('GET', '/users/user-07')).body.entities[0].nickname).toBe('Returns desk');
    const grant = (password: string) => call(server.t.app, undefined, 'POST', `${im.base}/token`, { grant_type: 'password', username: 'user-07', password });
    expect((await grant('new-pass-42')).status).toBe(200);
    expect((await grant(PASSWORD)).body.error).toBe('invalid_grant');

    await rows('Users').filter({ hasText: 'user-20' }).getByRole('button', { name: 'Delete… user user-20' }).click();
    await page.getByRole('alertdialog', { name: 'Delete the user user-20' }).getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('status').filter({ hasText: 'User user-20 deleted.' }).waitFor();
    expect((await api('GET', '/users/user-20')).status).toBe(404);
    expect(await firstCells('Users')).not.toContain('user-20');
  });

  it("finds a group, edits its name, description, maxusers and public flag, and its members", async () => {
    const groups = page.getByRole('region', { name: 'Groups', exact: true });
    await groups.getByLabel('Search groups').fill('support');
    await groups.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => firstCells('Groups')).toEqual(['Support one']);
    await rows('Groups').getByRole('button', { name: 'Show details of group Support one' }).click();
    const detail = page.getByRole('region', { name: 'Group Support one' });
    const edit = detail.getByRole('form', { name: 'Edit Support one' });
    await edit.getByLabel('Name', { exact: true }).fill('Support team');
    await edit.getByLabel('Description').fill('Second line');
    await edit.getByLabel('Members at most').fill('50');
    await edit.getByLabel('Public group (anyone can find it)').uncheck();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Group Support team saved.' }).waitFor();
    await expect.poll(async () => (await api('GET', `/chatgroups/${groupId}`)).body.data[0]).toMatchObject({ name: 'Support team', description: 'Second line', maxusers: 50, public: false });

    const team = page.getByRole('region', { name: 'Group Support team' });
    await team.getByLabel('Add a member').fill('user-05');
    await team.getByRole('button', { name: 'Add member' }).click();
    await team.getByRole('button', { name: 'Remove user-05' }).waitFor();
    await team.getByRole('button', { name: 'Remove user-02' }).click();
    await team.getByRole('button', { name: 'Remove user-02' }).waitFor({ state: 'detached' });
    const members = (await api('GET', `/chatgroups/${groupId}/users`)).body.data as Array<{ owner?: string; member?: string }>;
    expect(members.map((m) => m.owner ?? m.member).sort()).toEqual(['user-01', 'user-05']);
    expect(await team.textContent()).toContain('2 of 50 members · private');
    await screenshot(page, 'im-directory-group');
  });

  it("edits a chat room's name, description and maxusers (a chat room has no public flag)", async () => {
    const rooms = page.getByRole('region', { name: 'Chat rooms', exact: true });
    await rooms.getByLabel('Search chat rooms').fill(roomId);
    await rooms.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => firstCells('Chat rooms')).toEqual(['Launch day']);
    await rows('Chat rooms').getByRole('button', { name: 'Show details of chat room Launch day' }).click();
    const edit = page.getByRole('region', { name: 'Chat room Launch day' }).getByRole('form', { name: 'Edit Launch day' });
    expect(await edit.getByRole('checkbox').count()).toBe(0);
    await edit.getByLabel('Name', { exact: true }).fill('Launch night');
    await edit.getByLabel('Description').fill('After hours');
    await edit.getByLabel('Members at most').fill('500');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Chat room Launch night saved.' }).waitFor();
    expect((await api('GET', `/chatrooms/${roomId}`)).body.data[0]).toMatchObject({ name: 'Launch night', description: 'After hours', maxusers: 500 });
    await rows('Chat rooms').filter({ hasText: 'Launch night' }).waitFor();
    await screenshot(page, 'im-directory-room');
  });
});
