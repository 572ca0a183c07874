/** Throw-away source trees for the lint scripts' tests (scripts/check-*.mjs), and a way to run a script on one. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** `name` is a script under scripts/, e.g. `check-size.mjs`; trees are removed after each test. */
export function lintFixtures(name: string) {
  const script = fileURLToPath(new URL(`../../../../scripts/${name}`, import.meta.url));
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
  });
  return {
    /** A tree of `packages/<pkg>/src` files, `{ 'server/src/a.ts': "..." }`. */
    tree(files: Record<string, string>): string {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), `${name.replace(/\.mjs$/, '')}-`));
      roots.push(root);
      for (const [file, text] of Object.entries(files)) {
        const target = path.join(root, 'packages', file);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, text);
      }
      return root;
    },
    /** Runs the script on `root` (or on the repository when none is given). */
    check(root?: string) {
      const result = spawnSync(process.execPath, root ? [script, root] : [script], { encoding: 'utf8' });
      return { status: result.status, out: result.stdout + result.stderr };
    },
  };
}
