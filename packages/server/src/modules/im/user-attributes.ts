/**
 * User attributes (Easemob's "user metadata"): the fields an app shows for a user, `nickname`,
 * `avatarurl`, `mail`, `phone`, `gender`, `sign`, `birth`, `ext`, and custom keys, all strings.
 * A user sets their own (or the app token anyone's); any user of the app reads them. A write
 * merges into what is stored (a key given `""` keeps an empty value); at most 2 KiB a user (keys
 * and values, UTF-8), Easemob's limit. Writes are compare-and-set, so two concurrent writes of
 * different keys both land.
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { ImApp } from './ports.js';
import type { ImAttributesRepository } from './sdk-ports.js';
import { foldUsername, validUsername, type ImUsersService } from './users.js';

/** The fields Easemob's Web SDK sets and asks for. */
export const ATTRIBUTE_FIELDS = ['nickname', 'avatarurl', 'mail', 'phone', 'gender', 'sign', 'birth', 'ext'] as const;
/** A user's attributes, keys and values, in UTF-8 bytes. */
export const MAX_USER_ATTRIBUTE_BYTES = 2048;
/** One key's length. */
export const MAX_ATTRIBUTE_KEY_LENGTH = 64;
/** Users in one batch read. */
export const MAX_ATTRIBUTE_TARGETS = 100;
const KEY_PATTERN = /^[A-Za-z0-9_.-]+$/;
const ATTEMPTS = 5;

/** Pure: the size a user's attributes count against the limit. */
export function attributesSize(attributes: Record<string, string>): number {
  let size = 0;
  for (const [key, value] of Object.entries(attributes)) size += Buffer.byteLength(key) + Buffer.byteLength(value);
  return size;
}

/**
 * Pure: the changes of one write, as strings (a JSON number or boolean is written as its text), or
 * 400 `illegal_argument` naming the key.
 */
export function attributeChanges(input: unknown): Record<string, string> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new AppError('illegal_argument', { detail: 'body must name at least one attribute' });
  const changes: Record<string, string> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (key.length === 0 || key.length > MAX_ATTRIBUTE_KEY_LENGTH || !KEY_PATTERN.test(key)) {
      throw new AppError('illegal_argument', { detail: `attribute name "${key.slice(0, MAX_ATTRIBUTE_KEY_LENGTH)}" must be 1-${MAX_ATTRIBUTE_KEY_LENGTH} of A-Za-z0-9_.-` });
    }
    if (typeof value === 'string') changes[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') changes[key] = String(value);
    else throw new AppError('illegal_argument', { detail: `${key} must be a string` });
  }
  if (Object.keys(changes).length === 0) throw new AppError('illegal_argument', { detail: 'body must name at least one attribute' });
  return changes;
}

/** Pure: what is stored after a write, or 400 when it would pass the limit. */
export function mergeAttributes(stored: Record<string, string>, changes: Record<string, string>): Record<string, string> {
  const next = { ...stored, ...changes };
  const size = attributesSize(next);
  if (size > MAX_USER_ATTRIBUTE_BYTES) {
    throw new AppError('illegal_argument', { detail: `a user's attributes are at most ${MAX_USER_ATTRIBUTE_BYTES} bytes (these would be ${size})` });
  }
  return next;
}

/** Pure: only the asked properties of each user (all of them when none are asked). */
export function pickProperties(attributes: Record<string, string>, properties: readonly string[] | undefined): Record<string, string> {
  if (!properties || properties.length === 0) return attributes;
  const picked: Record<string, string> = {};
  for (const p of properties) if (Object.hasOwn(attributes, p)) picked[p] = attributes[p] as string;
  return picked;
}

export class UserAttributesService {
  constructor(
    private readonly repo: ImAttributesRepository,
    private readonly users: ImUsersService,
    private readonly clock: Clock,
  ) {}

  /** Merges the changes into the user's attributes; answers the changes (as Easemob does). */
  async set(app: ImApp, username: string, input: unknown): Promise<Record<string, string>> {
    const changes = attributeChanges(input);
    const user = await this.users.require(app, username);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const stored = await this.repo.get(app.id, user.username);
      const next = mergeAttributes(stored?.attributes ?? {}, changes);
      if (await this.repo.replace(app.id, user.username, stored?.text ?? null, next, this.clock.now())) return changes;
    }
    throw new AppError('service_unavailable', { detail: 'the attributes changed too often meanwhile; try again' }, { headers: { 'retry-after': '1' } });
  }

  async get(app: ImApp, username: string): Promise<Record<string, string>> {
    const user = await this.users.require(app, username);
    return (await this.repo.get(app.id, user.username))?.attributes ?? {};
  }

  /** The asked properties of each target that has attributes; unknown users are left out. */
  async getMany(app: ImApp, targets: readonly string[], properties?: readonly string[]): Promise<Record<string, Record<string, string>>> {
    if (targets.length > MAX_ATTRIBUTE_TARGETS) throw new AppError('illegal_argument', { detail: `targets: at most ${MAX_ATTRIBUTE_TARGETS} users` });
    const names = [...new Set(targets.map((t, i) => validUsername(t, `targets[${i}]`)))];
    const found = await this.repo.getMany(app.id, names);
    const out: Record<string, Record<string, string>> = {};
    for (const name of names) {
      const attributes = found.get(name);
      if (attributes) out[name] = pickProperties(attributes, properties);
    }
    return out;
  }

  /** Removes every attribute of the user; a user without any, or unknown, is no error (Easemob). */
  async remove(app: ImApp, username: string): Promise<void> {
    await this.repo.remove(app.id, foldUsername(username));
  }
}
