import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '@parley/protocol';

const doc = fs.readFileSync(fileURLToPath(new URL('../../../../docs/errors.md', import.meta.url)), 'utf8');

/** Rows of the table: | `code` | status | surface | when | */
const rows = [...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|\s*(api|im|both)\s*\|/gm)].map((m) => ({
  code: m[1] as string,
  status: Number(m[2]),
  surface: m[3] as string,
}));

describe('docs/errors.md', () => {
  it('lists exactly the codes of the registry, with their status and surface', () => {
    const fromRegistry = Object.entries(ERRORS)
      .map(([code, d]) => ({ code, status: d.status, surface: d.surface }))
      .sort((a, b) => a.code.localeCompare(b.code));
    expect([...rows].sort((a, b) => a.code.localeCompare(b.code))).toEqual(fromRegistry);
  });

  it('has no code twice', () => {
    expect(new Set(rows.map((r) => r.code)).size).toBe(rows.length);
  });
});
