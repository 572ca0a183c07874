import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (rel: string) => fs.readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8');

describe('README configuration table', () => {
  it('documents every environment variable the config module reads', () => {
    const source = read('../../src/config/index.ts');
    const readme = read('../../../../README.md');
    const names = new Set([
      ...[...source.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] as string),
      ...[...source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1] as string),
    ]);
    expect(names.size).toBeGreaterThan(10);
    const documented = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1] as string));
    expect([...names].filter((n) => !documented.has(n))).toEqual([]);
  });
});
