/**
 * Every environment variable the config module reads has a row in the table of
 * docs/configuration.md, and the README names the common ones and links to that table.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (rel: string) => fs.readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8');

describe('configuration documents', () => {
  it('docs/configuration.md documents every environment variable the config module reads', () => {
    const source = read('../../src/config/index.ts');
    const doc = read('../../../../docs/configuration.md');
    const names = new Set([
      ...[...source.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] as string),
      ...[...source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1] as string),
    ]);
    expect(names.size).toBeGreaterThan(10);
    const documented = new Set([...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1] as string));
    expect([...names].filter((n) => !documented.has(n))).toEqual([]);
    expect([...documented].filter((n) => !names.has(n))).toEqual([]);
  });

  it('the README names the common variables and links to the full table', () => {
    const readme = read('../../../../README.md');
    expect(readme).toContain('](docs/configuration.md)');
    const common = ['PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'REDIS_URL', 'PARLEY_ADMIN_USERNAME', 'PARLEY_ADMIN_PASSWORD', 'PARLEY_ALLOW_PRIVATE_CALLBACKS', 'LOG_LEVEL'];
    expect(common.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });
});
