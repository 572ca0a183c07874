#!/usr/bin/env node
// Size rules of the source tree, run by `npm run lint`; exits 1 naming each breach:
// - no file over 400 lines in packages/*/src;
// - no function (declaration, expression, arrow, method, accessor, constructor) over 80 lines in
//   packages/server/src and packages/protocol/src. A function's length is the span of its lines,
//   nested functions included, so a factory returning an object of closures counts all of them.
// `node scripts/check-size.mjs [root]` checks another tree (the tests use fixtures).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, dirname, resolve, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { listSources } from './lib/source-files.mjs';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;
const root = resolve(process.argv[2] ?? resolve(dirname(fileURLToPath(import.meta.url)), '..'));
const FUNCTION_ROOTS = ['packages/server/src', 'packages/protocol/src'];


/** Lines as `wc -l` and editors count them: a final newline ends the last line, it opens no new one. */
function lineCount(text) {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

const shown = (file) => relative(root, file).split(sep).join('/');

function functionName(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) {
    return parent.name.getText(source);
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

function longFunctions(file) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ name: functionName(node, source), line: first + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const breaches = [];
const packagesDir = join(root, 'packages');
const packages = existsSync(packagesDir) ? readdirSync(packagesDir) : [];
for (const pkg of packages) {
  for (const file of listSources(join(packagesDir, pkg, 'src'))) {
    const lines = lineCount(readFileSync(file, 'utf8'));
    if (lines > MAX_FILE_LINES) breaches.push(`${shown(file)}: ${lines} lines (at most ${MAX_FILE_LINES} per file)`);
  }
}
for (const dir of FUNCTION_ROOTS) {
  for (const file of listSources(join(root, dir))) {
    for (const f of longFunctions(file)) {
      breaches.push(`${shown(file)}:${f.line} ${f.name}: ${f.lines} lines (at most ${MAX_FUNCTION_LINES} per function)`);
    }
  }
}
if (breaches.length > 0) {
  console.error(`check-size: ${breaches.length} breach(es)`);
  for (const b of breaches) console.error(`  ${b}`);
  process.exit(1);
}
console.log('check-size: no file over 400 lines, no function over 80 lines');
