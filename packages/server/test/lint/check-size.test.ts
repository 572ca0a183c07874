import { describe, expect, it } from 'vitest';
import { lintFixtures } from '../helpers/lint-fixtures.js';

const { tree, check } = lintFixtures('check-size.mjs');

/** `count` lines of statements, each indented by `indent` and ended by a newline. */
const statements = (count: number, indent = '  ') =>
  Array.from({ length: count }, (_, i) => `${indent}void ${i};\n`).join('');

/** A module of exactly `count` lines, with no function in it. */
const moduleOf = (count: number) => Array.from({ length: count }, (_, i) => `export const v${i} = ${i};\n`).join('');

/** A function declaration spanning `total` lines, its braces included. */
const declared = (name: string, total: number) => `export function ${name}() {\n${statements(total - 2)}}\n`;
/** An arrow function in a const spanning `total` lines. */
const arrow = (name: string, total: number) => `export const ${name} = () => {\n${statements(total - 2)}};\n`;
/** A class method spanning `total` lines (the class adds one line above and one below). */
const method = (name: string, total: number) => `  ${name}() {\n${statements(total - 2, '    ')}  }\n`;

describe('scripts/check-size.mjs', () => {
  it('passes a tree where every file has at most 400 lines and every function at most 80', () => {
    const root = tree({
      'server/src/a.ts': moduleOf(400),
      'server/src/f.ts': declared('longest', 80),
      'protocol/src/a.ts': arrow('longest', 80),
      'sdk/src/a.ts': moduleOf(400),
      'console/src/a.tsx': moduleOf(400),
    });
    const { status, out } = check(root);
    expect(out).toContain('check-size: no file over 400 lines, no function over 80 lines');
    expect(status).toBe(0);
  });

  it('fails on a file of 401 lines in any package, counting lines as wc -l does', () => {
    const root = tree({
      'server/src/big.ts': moduleOf(401),
      'protocol/src/ok.ts': moduleOf(400),
      'sdk/src/big.ts': moduleOf(401),
      // No final newline: the last line still counts.
      'sdk/src/unended.ts': moduleOf(401).slice(0, -1),
      'console/src/pages/big.tsx': moduleOf(401),
      'console/src/ok.tsx': moduleOf(400),
    });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('check-size: 4 breach(es)');
    for (const file of ['server/src/big.ts', 'sdk/src/big.ts', 'sdk/src/unended.ts', 'console/src/pages/big.tsx']) {
      expect(out).toContain(`packages/${file}: 401 lines (at most 400 per file)`);
    }
    expect(out).not.toContain('ok.ts');
  });

  it('fails on a function of 81 lines: a declaration, an arrow in a const, a method; 80 lines pass', () => {
    const root = tree({
      'server/src/declared.ts': declared('declared81', 81) + declared('declared80', 80),
      'server/src/arrow.ts': arrow('arrow80', 80) + arrow('arrow81', 81),
      'server/src/method.ts': `export class Things {\n${method('method81', 81)}${method('method80', 80)}}\n`,
    });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('check-size: 3 breach(es)');
    expect(out).toContain('packages/server/src/declared.ts:1 declared81: 81 lines (at most 80 per function)');
    expect(out).toContain('packages/server/src/arrow.ts:81 arrow81: 81 lines (at most 80 per function)');
    expect(out).toContain('packages/server/src/method.ts:2 method81: 81 lines (at most 80 per function)');
    expect(out).not.toMatch(/80: 80 lines/);
  });

  it('counts a factory whole: its object-literal methods are part of its span', () => {
    // Three methods of 30 lines each, none of them long, in a factory of 92 lines.
    const member = (name: string) => `  async ${name}() {\n${statements(28, '    ')}  },\n`;
    const factory = `export const kyselyThings = (db: unknown) => ({\n${member('one')}${member('two')}${member('three')}});\n`;
    const root = tree({ 'server/src/storage/things.ts': factory, 'protocol/src/small.ts': declared('small', 10) });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('check-size: 1 breach(es)');
    expect(out).toContain('packages/server/src/storage/things.ts:1 kyselyThings: 92 lines (at most 80 per function)');
    expect(out).not.toMatch(/ (one|two|three|small):/);
  });

  it('checks function length in server and protocol only; console and sdk only for file length', () => {
    const root = tree({
      'server/src/long.ts': declared('serverLong', 81),
      'protocol/src/long.ts': arrow('protocolLong', 81),
      'sdk/src/long.ts': declared('sdkLong', 81),
      'console/src/long.tsx': arrow('consoleLong', 81),
    });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('check-size: 2 breach(es)');
    expect(out).toContain('packages/server/src/long.ts:1 serverLong: 81 lines');
    expect(out).toContain('packages/protocol/src/long.ts:1 protocolLong: 81 lines');
    expect(out).not.toContain('sdkLong');
    expect(out).not.toContain('consoleLong');
  });
});
