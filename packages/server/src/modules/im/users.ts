/** IM users (contract 4.1): names are folded to lower case and must match `a-z0-9_.-`, 1–64. */
import { IM_USERNAME_PATTERN, type ImUserView, type NewImUser } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { uuid } from '../../kernel/ids.js';
import { isConflict } from '../../kernel/unit-of-work.js';
import type { Passwords } from '../accounts/password.js';
import { decodeCursor, foldSearch, pageOf, type Page } from './paging.js';
import type { ImApp, ImUser, ImUsersRepository } from './ports.js';

export const foldUsername = (name: string): string => name.trim().toLowerCase();

/** Folds and checks a user name; `field` names it in the 400. */
export function validUsername(name: string, field = 'username'): string {
  const folded = foldUsername(name);
  if (!IM_USERNAME_PATTERN.test(folded)) {
    throw new AppError('illegal_argument', { detail: `${field}: "${name}" is not a valid user name (1-64 of a-z 0-9 _ . -)` });
  }
  return folded;
}

/**
 * Shortest IM user password. Easemob documents only a maximum (64 characters); six is the usual
 * floor of services of its kind and keeps one-character passwords out.
 */
export const IM_PASSWORD_MIN_LENGTH = 6;

export function assertPassword(password: string, field = 'password'): void {
  if ([...password].length < IM_PASSWORD_MIN_LENGTH) {
    throw new AppError('illegal_argument', { detail: `${field}: must be at least ${IM_PASSWORD_MIN_LENGTH} characters` });
  }
}

export const imUserView = (u: ImUser): ImUserView => ({
  uuid: u.uuid,
  type: 'user',
  created: u.createdAt,
  modified: u.modifiedAt,
  username: u.username,
  ...(u.nickname === null ? {} : { nickname: u.nickname }),
  activated: true,
});

/** How long a user seen to exist is trusted without a read (receivers are checked on every send). */
const EXISTS_CACHE_MS = 10_000;
const EXISTS_CACHE_MAX = 50_000;

export class ImUsersService {
  private readonly known = new Map<string, number>();

  constructor(
    private readonly repo: ImUsersRepository,
    private readonly clock: Clock,
    private readonly passwords: Passwords,
  ) {}

  async create(app: ImApp, input: NewImUser[]): Promise<ImUserView[]> {
    const field = (i: number, name: string) => (input.length > 1 ? `[${i}].${name}` : name);
    const names = input.map((u, i) => validUsername(u.username, field(i, 'username')));
    input.forEach((u, i) => assertPassword(u.password, field(i, 'password')));
    const seen = new Set<string>();
    for (const name of names) {
      if (seen.has(name)) throw new AppError('duplicate_unique_property_exists', { entity: 'user', property: 'username', value: name });
      seen.add(name);
    }
    const taken = await this.repo.existingUsers(app.id, names);
    if (taken.length > 0) throw new AppError('duplicate_unique_property_exists', { entity: 'user', property: 'username', value: taken[0] });
    const now = this.clock.now();
    const users: ImUser[] = [];
    // One after another: a batch holds one place in the password pool, not one per user.
    for (const [i, u] of input.entries()) {
      users.push({
        appId: app.id,
        username: names[i] as string,
        uuid: uuid(),
        passwordHash: await this.passwords.hash(u.password),
        nickname: u.nickname ?? null,
        createdAt: now,
        modifiedAt: now,
      });
    }
    try {
      await this.repo.createUsers(users);
    } catch (error) {
      if (isConflict(error, 'unique')) throw new AppError('duplicate_unique_property_exists', { entity: 'user', property: 'username', value: names.join(', ') });
      throw error;
    }
    return users.map(imUserView);
  }

  async require(app: ImApp, username: string): Promise<ImUser> {
    const user = await this.repo.getUser(app.id, foldUsername(username));
    if (!user) throw new AppError('service_resource_not_found', { resource: `Service resource user ${username}` });
    return user;
  }

  async remove(app: ImApp, username: string): Promise<ImUserView> {
    const user = await this.repo.deleteUser(app.id, foldUsername(username));
    this.forget(app.id, username);
    if (!user) throw new AppError('service_resource_not_found', { resource: `Service resource user ${username}` });
    return imUserView(user);
  }

  /** Drops what this instance remembers of a user deleted here or on another instance. */
  forget(appId: string, username: string): void {
    this.known.delete(`${appId}\u0000${foldUsername(username)}`);
  }

  /**
   * A page of the app's users, oldest first; `cursor` from the previous page. With `search`, only
   * those whose username or nickname contains it, case-insensitively.
   */
  async list(app: ImApp, limit: number, cursor: string | undefined, search?: string): Promise<Page<ImUserView>> {
    const after = cursor === undefined ? undefined : decodeCursor('users', cursor);
    const rows = await this.repo.listUsers(app.id, after, limit + 1, foldSearch(search));
    const page = pageOf('users', rows, limit, (u) => ({ at: u.createdAt, id: u.username }));
    return { items: page.items.map(imUserView), ...(page.cursor ? { cursor: page.cursor } : {}) };
  }

  /** Sets the nickname; an empty one clears it. */
  async setNickname(app: ImApp, username: string, nickname: string): Promise<ImUserView> {
    const user = await this.repo.setNickname(app.id, foldUsername(username), nickname === '' ? null : nickname, this.clock.now());
    if (!user) throw new AppError('service_resource_not_found', { resource: `Service resource user ${username}` });
    return imUserView(user);
  }

  /**
   * Sets a new password without the old one (the app admin's reset, as Easemob's). Hashed through
   * the shared pool; tokens already issued keep working until they expire.
   */
  async setPassword(app: ImApp, username: string, newPassword: string): Promise<void> {
    assertPassword(newPassword, 'newpassword');
    const user = await this.require(app, username);
    const hash = await this.passwords.hash(newPassword);
    if (!(await this.repo.setPasswordHash(app.id, user.username, hash, this.clock.now()))) {
      throw new AppError('service_resource_not_found', { resource: `Service resource user ${username}` });
    }
  }

  /** Those of `names` (already folded) that do not exist. */
  async missing(app: ImApp, names: string[]): Promise<string[]> {
    const now = this.clock.now();
    const key = (n: string) => `${app.id}\u0000${n}`;
    const fresh = (n: string) => {
      const at = this.known.get(key(n));
      return at !== undefined && now - at < EXISTS_CACHE_MS && now >= at;
    };
    const unknown = new Set(names.filter((n) => !fresh(n)));
    if (unknown.size === 0) return [];
    const found = new Set(await this.repo.existingUsers(app.id, [...unknown]));
    if (this.known.size + found.size > EXISTS_CACHE_MAX) this.known.clear();
    for (const n of found) this.known.set(key(n), now);
    // Decided by what was looked up here: the cache may have changed during the read (another call
    // stamping a name with its own, later time), which says nothing about whether the name exists.
    return names.filter((n) => unknown.has(n) && !found.has(n));
  }
}
