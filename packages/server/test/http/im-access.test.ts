/** The pure rule of who may call a user-scoped IM route (http/routes/im/access.ts). */
import { describe, expect, it } from 'vitest';
import { assertScope, roleAdmits, selfAdmits, type GroupRole } from '../../src/http/routes/im/access.js';

const ann = { level: 'user', username: 'ann' } as const;
const admin = { level: 'admin' } as const;
const roles: Record<string, GroupRole> = { g1: 'owner', g2: 'member', g3: null };
const roleOf = async (_kind: string, id: string) => roles[id] ?? null;

describe('IM route scopes', () => {
  it('a path naming a user admits the app token and that user only, names folded', () => {
    expect(selfAdmits(admin, 'ben')).toBe(true);
    expect(selfAdmits(ann, 'ann')).toBe(true);
    expect(selfAdmits(ann, ' ANN ')).toBe(true);
    expect(selfAdmits(ann, 'ben')).toBe(false);
  });

  it('a group admits members, owner routes only the owner', () => {
    expect(roleAdmits('member', undefined)).toBe(true);
    expect(roleAdmits('owner', undefined)).toBe(true);
    expect(roleAdmits(null, undefined)).toBe(false);
    expect(roleAdmits('member', 'owner')).toBe(false);
    expect(roleAdmits('owner', 'owner')).toBe(true);
  });

  it('refuses with 403 forbidden_op, and never asks the group of an app token', async () => {
    await expect(assertScope(ann, { self: 'u' }, { u: 'ben' }, roleOf)).rejects.toMatchObject({ code: 'forbidden_op', status: 403 });
    await expect(assertScope(ann, { self: 'u' }, {}, roleOf)).rejects.toMatchObject({ code: 'forbidden_op' });
    await expect(assertScope(ann, { member: 'id', kind: 'group' }, { id: 'g3' }, roleOf)).rejects.toMatchObject({ code: 'forbidden_op' });
    await expect(assertScope(ann, { member: 'id', kind: 'group', role: 'owner' }, { id: 'g2' }, roleOf)).rejects.toMatchObject({ code: 'forbidden_op' });
    await expect(assertScope(ann, { member: 'id', kind: 'group', role: 'owner' }, { id: 'g1' }, roleOf)).resolves.toBeUndefined();
    const never = async (): Promise<GroupRole> => {
      throw new Error('asked');
    };
    await expect(assertScope(admin, { member: 'id', kind: 'group' }, { id: 'g3' }, never)).resolves.toBeUndefined();
  });
});
