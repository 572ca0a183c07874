/**
 * Every installed dependency with an install script is reviewed in `allowScripts` (package.json),
 * so `npm ci` ends without an `npm warn install-scripts` block: better-sqlite3's native build is
 * allowed, esbuild's postinstall denied (its binary comes from its platform package).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const run = promisify(execFile);
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));

describe('install scripts', () => {
  it('allowScripts decides on better-sqlite3 and esbuild', () => {
    const pkg = JSON.parse(fs.readFileSync(`${ROOT}package.json`, 'utf8')) as { allowScripts: Record<string, boolean> };
    expect(pkg.allowScripts).toEqual({ 'better-sqlite3': true, esbuild: false });
  });

  it('npm install-scripts ls finds nothing left to review', async () => {
    const { stdout } = await run('npm', ['install-scripts', 'ls'], { cwd: ROOT, env }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`npm install-scripts ls failed: ${error.stderr ?? ''}${error.stdout ?? ''}`);
    });
    expect(stdout.trim()).toBe('No packages with unreviewed install scripts.');
  });
});
