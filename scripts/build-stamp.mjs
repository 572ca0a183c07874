#!/usr/bin/env node
// Lets `npm start` and `npm test` skip the build when the build outputs are those of the sources
// on disk, so `npm ci && npm start` builds once (npm ci's `prepare`), not twice.
//
//   node scripts/build-stamp.mjs write   after a build: records a fingerprint of its inputs
//   node scripts/build-stamp.mjs check   exit 0 when the outputs exist and the inputs still match
//                                        that fingerprint; exit 1 otherwise (then build)
//
// The fingerprint covers the path, size and modification time of every build input (each
// package's src/, its package.json, tsconfig files, the console's index.html and Vite config, and
// the root's package.json, lock file and base tsconfig), so an edit, a new file, a deleted file or a
// `git pull` all mean "build again". It lives in node_modules/.cache, which `npm ci` starts afresh.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// `node scripts/build-stamp.mjs check [root]` checks another tree (the tests use fixtures).
const root = resolve(process.argv[3] ?? resolve(dirname(fileURLToPath(import.meta.url)), '..'));
const STAMP = join(root, 'node_modules', '.cache', 'parley-build-stamp');
const PACKAGES = ['protocol', 'server', 'sdk', 'console'];
const ROOT_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.base.json'];
const PACKAGE_INPUTS = ['package.json', 'tsconfig.json', 'index.html', 'vite.config.ts'];
const OUTPUTS = [
  'packages/protocol/dist/index.js',
  'packages/sdk/dist/index.js',
  'packages/server/dist/main.js',
  'packages/server/dist/admin-cli.js',
  'packages/console/dist/index.html',
];

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function inputs() {
  const files = ROOT_INPUTS.map((name) => join(root, name));
  for (const pkg of PACKAGES) {
    const dir = join(root, 'packages', pkg);
    files.push(...PACKAGE_INPUTS.map((name) => join(dir, name)), ...filesUnder(join(dir, 'src')));
  }
  return files.filter((file) => existsSync(file)).sort();
}

function fingerprint() {
  const hash = createHash('sha256');
  for (const file of inputs()) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(root, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const command = process.argv[2];
if (command === 'write') {
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${fingerprint()}\n`);
} else if (command === 'check') {
  const missing = OUTPUTS.filter((file) => !existsSync(join(root, file)));
  const stamp = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : '';
  if (missing.length === 0 && stamp === fingerprint()) {
    console.log('build is current (scripts/build-stamp.mjs); not building again');
    process.exit(0);
  }
  console.log(missing.length > 0 ? `building: ${missing.join(', ')} missing` : 'building: sources changed since the last build');
  process.exit(1);
} else {
  console.error('usage: node scripts/build-stamp.mjs write|check');
  process.exit(2);
}
