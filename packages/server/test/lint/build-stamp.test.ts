/**
 * scripts/build-stamp.mjs, which lets `npm start` and `npm test` skip a build that is current
 * (so `npm ci && npm start` builds once): a fresh stamp passes; an edit, a new or deleted source,
 * or a missing output fails the check.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../../scripts/build-stamp.mjs', import.meta.url));
const roots: string[] = [];

const OUTPUTS = [
  'packages/protocol/dist/index.js',
  'packages/sdk/dist/index.js',
  'packages/server/dist/main.js',
  'packages/server/dist/admin-cli.js',
  'packages/console/dist/index.html',
];

/** A throw-away repository with sources and every build output. */
function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-stamp-'));
  roots.push(root);
  const files = ['package.json', 'package-lock.json', 'packages/server/src/main.ts', 'packages/server/src/modules/a.ts', 'packages/console/index.html', 'packages/protocol/src/index.ts', ...OUTPUTS];
  for (const name of files) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), `// ${name}\n`);
  }
  return root;
}

function run(command: string, root: string) {
  const result = spawnSync(process.execPath, [script, command, root], { encoding: 'utf8' });
  return { status: result.status, out: result.stdout + result.stderr };
}

/** A later modification time than any the stamp saw, whatever the file system's resolution. */
function touch(file: string): void {
  const later = new Date(fs.statSync(file).mtimeMs + 5_000);
  fs.utimesSync(file, later, later);
}

afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

describe('build stamp', () => {
  it('says build when there is no stamp, and not after one is written', () => {
    const root = tree();
    expect(run('check', root)).toMatchObject({ status: 1, out: expect.stringContaining('sources changed') });
    expect(run('write', root).status).toBe(0);
    expect(run('check', root)).toMatchObject({ status: 0, out: expect.stringContaining('build is current') });
  });

  it('says build after a source is edited, added or deleted', () => {
    const root = tree();
    run('write', root);
    touch(path.join(root, 'packages/server/src/modules/a.ts'));
    expect(run('check', root).status).toBe(1);

    run('write', root);
    fs.mkdirSync(path.join(root, 'packages/console/src'), { recursive: true });
    fs.writeFileSync(path.join(root, 'packages/console/src/new.tsx'), '');
    expect(run('check', root).status).toBe(1);

    run('write', root);
    fs.rmSync(path.join(root, 'packages/server/src/modules/a.ts'));
    expect(run('check', root).status).toBe(1);

    run('write', root);
    touch(path.join(root, 'package-lock.json'));
    expect(run('check', root).status).toBe(1);
  });

  it('says build when an output is missing, naming it', () => {
    const root = tree();
    run('write', root);
    fs.rmSync(path.join(root, 'packages/console/dist/index.html'));
    expect(run('check', root)).toMatchObject({ status: 1, out: expect.stringContaining('packages/console/dist/index.html missing') });
  });

  it('ignores files that are not build inputs', () => {
    const root = tree();
    run('write', root);
    fs.mkdirSync(path.join(root, 'packages/server/test'), { recursive: true });
    fs.writeFileSync(path.join(root, 'packages/server/test/x.test.ts'), '');
    fs.writeFileSync(path.join(root, 'README.md'), '# notes\n');
    expect(run('check', root).status).toBe(0);
  });
});
