/**
 * Who may call a user-scoped IM route (contract 6.8, "Who may call what"). A route declares its
 * scope in `config.imAuth`; the IM context hook (context.ts) authenticates the token and then asks
 * `admits` here, before the route's handler and before its body is read:
 *
 *   { self: 'username' }                     the path parameter names a user: an app-admin token,
 *                                            or the user token of that very user
 *   { member: 'id', kind: 'group' }          the path parameter names a group (or chat room): an
 *                                            app-admin token, or a user token of one of its members
 *   { member: 'id', kind, role: 'owner' }    ... of its owner
 *
 * A user token outside its scope is 403 `forbidden_op`; an unknown group is 404. The decision is a
 * pure function of the principal, the parameter and (for groups) the caller's role there.
 */
import { AppError } from '../../../kernel/errors.js';
import type { ImPrincipal } from '../../../modules/im/apps.js';
import type { GroupKind } from '../../../modules/im/ports.js';

export type ImScope =
  | { readonly self: string }
  | { readonly member: string; readonly kind: GroupKind; readonly role?: 'owner' };

/** A user's place in a group: its owner, a member, or not in it. */
export type GroupRole = 'owner' | 'member' | null;

/** Reads the caller's role in a group; throws 404 when the group does not exist. */
export type GroupRoleOf = (kind: GroupKind, groupId: string, username: string) => Promise<GroupRole>;

/** Whether the scope names a user (self) or a group (member). */
export const isScope = (value: unknown): value is ImScope => typeof value === 'object' && value !== null && ('self' in value || 'member' in value);

const fold = (name: string): string => name.trim().toLowerCase();

/** The pure rule for a path that names a user. */
export function selfAdmits(principal: ImPrincipal, username: string): boolean {
  return principal.level === 'admin' || principal.username === fold(username);
}

/** The pure rule for a group: members for member routes, the owner for owner routes. */
export function roleAdmits(role: GroupRole, wanted: 'owner' | undefined): boolean {
  if (role === null) return false;
  return wanted === 'owner' ? role === 'owner' : true;
}

/** Throws 403 `forbidden_op` unless the principal may call a route of this scope with these path parameters. */
export async function assertScope(principal: ImPrincipal, scope: ImScope, params: Record<string, string | undefined>, roleOf: GroupRoleOf): Promise<void> {
  if (principal.level === 'admin') return;
  if ('self' in scope) {
    const username = params[scope.self] ?? '';
    if (!selfAdmits(principal, username)) throw new AppError('forbidden_op', { detail: `a user token may only act for its own user (${principal.username})` });
    return;
  }
  const groupId = params[scope.member] ?? '';
  const role = await roleOf(scope.kind, groupId, principal.username);
  if (!roleAdmits(role, scope.role)) {
    const who = scope.role === 'owner' ? 'the owner' : 'a member';
    throw new AppError('forbidden_op', { detail: `only ${who} of ${scope.kind} ${groupId} may do this` });
  }
}
