import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { missingNodeFlags, NODE_FLAGS } from '../../src/node-flags.js';

describe('V8 flags', () => {
  it('npm start passes every flag Parley is tuned for', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
    for (const flag of NODE_FLAGS) expect(pkg.scripts.start.split(/\s+/)).toContain(flag);
  });

  it('tells which flags a process was started without, from its arguments or NODE_OPTIONS', () => {
    expect(missingNodeFlags([], '')).toEqual([...NODE_FLAGS]);
    expect(missingNodeFlags(['--max-semi-space-size=64'], '')).toEqual([]);
    expect(missingNodeFlags([], '--enable-source-maps --max-semi-space-size=16')).toEqual([]);
  });
});
