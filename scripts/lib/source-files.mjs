// The TypeScript source files under a folder, for the lint scripts (declaration files left out).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const SOURCE = /\.(ts|tsx|mts)$/;

/** Every source file under `dir`, depth first; none when `dir` does not exist. */
export function listSources(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listSources(path));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}
