/**
 * The production bundle stays small: under 400 KiB gzipped in total (issue 6 acceptance).
 * Measures what a browser downloads for /console: index.html and every file it references.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, CONSOLE_DIST } from './helpers/browser.js';

const LIMIT_BYTES = 400 * 1024;

describe('console production bundle', () => {
  it('exists, references only files it contains, and is under 400 KiB gzipped', () => {
    const indexPath = path.join(CONSOLE_DIST, 'index.html');
    if (!fs.existsSync(indexPath)) throw new Error(`No console bundle at ${CONSOLE_DIST}: run "npm run build" first.`);
    const html = fs.readFileSync(indexPath, 'utf8');
    const referenced = [...html.matchAll(/(?:src|href)="\/console\/([^"]+)"/g)].map((m) => m[1] as string);
    expect(referenced.some((f) => f.endsWith('.js'))).toBe(true);
    expect(referenced.some((f) => f.endsWith('.css'))).toBe(true);

    const files = ['index.html', ...referenced];
    const sizes = files.map((file) => {
      const full = path.join(CONSOLE_DIST, file);
      expect(fs.existsSync(full), `${file} referenced by index.html`).toBe(true);
      const raw = fs.readFileSync(full);
      return { file, bytes: raw.length, gzipBytes: gzipSync(raw).length };
    });
    // Lazily loaded chunks count too: everything the build emitted under assets/.
    for (const file of fs.readdirSync(path.join(CONSOLE_DIST, 'assets')).map((f) => `assets/${f}`)) {
      if (files.includes(file)) continue;
      const raw = fs.readFileSync(path.join(CONSOLE_DIST, file));
      sizes.push({ file, bytes: raw.length, gzipBytes: gzipSync(raw).length });
    }
    const total = sizes.reduce((sum, s) => sum + s.gzipBytes, 0);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'bundle-size.json'), JSON.stringify({ limitBytes: LIMIT_BYTES, totalGzipBytes: total, files: sizes }, null, 2));
    console.log(`console bundle: ${(total / 1024).toFixed(1)} KiB gzipped (limit 400 KiB)`);
    expect(total).toBeLessThan(LIMIT_BYTES);
  });
});
