#!/usr/bin/env node
// The import rules of packages/*/src, checked on the relative-import graph; runs as part of
// `npm run lint` and exits 1 on a breach, naming the files:
// - no import cycle (printed as a chain of files);
// - table definitions (server storage/tables/) are imported only by storage itself;
// - concrete repositories (server storage/repositories/) are imported only by other
//   repositories and the composition root (server app.ts and the composition/ folder whose
//   steps it runs); modules get them as ports;
// - the SQL job queue (server storage/jobs/) is imported only by the composition root; modules
//   get it as the JobQueue port;
// - modules (server modules/) import nothing of storage/ and not `kysely`: they write through the
//   unit of work and the repository ports the composition root hands them;
// - the engine-neutral files of storage/ (its top level) do not import an engine's folder
//   (storage/sqlite/, storage/postgres/); only the factory (storage/index.ts) chooses one.
// `node scripts/check-imports.mjs [root]` checks another tree (the tests use fixtures).
//
// `import type` / `export type` edges count too: a type-only cycle is harmless at run time but
// still means two files cannot be understood (or moved) apart, and the shape we keep is
// "no import cycle" without exceptions. Dynamic `import()` counts as well.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, dirname, resolve, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { listSources, SOURCE } from './lib/source-files.mjs';

const root = resolve(process.argv[2] ?? resolve(dirname(fileURLToPath(import.meta.url)), '..'));
const SERVER = 'packages/server/src/';

/** Who may import what: a target under `target` may be imported only from a file matching `from`. */
const BOUNDARIES = [
  {
    target: `${SERVER}storage/tables/`,
    from: (file) => file.startsWith(`${SERVER}storage/`),
    rule: 'table definitions are imported only by storage (schema and repositories)',
  },
  {
    target: `${SERVER}storage/repositories/`,
    from: (file) =>
      file === `${SERVER}app.ts` || file.startsWith(`${SERVER}composition/`) || file.startsWith(`${SERVER}storage/repositories/`),
    rule: 'concrete repositories are built only in the composition root (app.ts, composition/)',
  },
  {
    target: `${SERVER}storage/jobs/`,
    from: (file) => file === `${SERVER}app.ts` || file.startsWith(`${SERVER}composition/`) || file.startsWith(`${SERVER}storage/jobs/`),
    rule: 'the SQL job queue is built only in the composition root (app.ts, composition/); modules use the JobQueue port',
  },
  {
    target: `${SERVER}storage/`,
    from: (file) => !file.startsWith(`${SERVER}modules/`),
    rule: 'modules write through the unit of work and the repository ports the composition root gives them, never storage itself',
  },
  ...['sqlite', 'postgres'].map((engine) => ({
    target: `${SERVER}storage/${engine}/`,
    from: (file) => !isNeutralStorageFile(file),
    rule: "engine-neutral storage files do not import an engine's folder; only the factory (storage/index.ts) chooses the engine",
  })),
];

/** A file at the top level of storage/, which serves either engine (the factory aside). */
function isNeutralStorageFile(file) {
  if (!file.startsWith(`${SERVER}storage/`) || file === `${SERVER}storage/index.ts`) return false;
  return !file.slice(`${SERVER}storage/`.length).includes('/');
}

/** Bare packages a file may not import: the module folders never see the query builder. */
const FORBIDDEN_PACKAGES = [{ from: `${SERVER}modules/`, name: 'kysely', rule: 'modules do not import kysely: they get transactions from the unit of work' }];


/** Resolves a relative specifier the way TypeScript's NodeNext/bundler resolution does for our code. */
function resolveSpecifier(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|mjs|ts|tsx)$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (SOURCE.test(candidate) && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function importsOf(file, bare = false) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const specifiers = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      specifiers.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (bare) return specifiers.filter((s) => !s.startsWith('.'));
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => resolveSpecifier(file, s))
    .filter((target) => target !== undefined);
}

/** Tarjan's strongly connected components; every component with more than one file (or a self-import) is a cycle. */
function stronglyConnected(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const strongConnect = (v) => {
    indices.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), indices.get(w)));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) strongConnect(v);
  return components;
}

/** One shortest chain start → … → start inside a component, for a readable report. */
function chainThrough(graph, component, start) {
  const members = new Set(component);
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const chain = [start];
        for (let at = v; at !== undefined && at !== start; at = previous.get(at)) chain.splice(1, 0, at);
        return [...chain, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

const packagesDir = join(root, 'packages');
const files = readdirSync(packagesDir)
  .map((name) => join(packagesDir, name, 'src'))
  .filter((dir) => existsSync(dir))
  .flatMap(listSources);
const graph = new Map(files.map((file) => [file, [...new Set(importsOf(file))]]));

const show = (file) => relative(root, file).split(sep).join('/');
const failures = [];

for (const component of stronglyConnected(graph)) {
  failures.push(`import cycle among ${component.length} files:`);
  // One chain per file, de-duplicated, so every edge that closes the component is visible.
  const seen = new Set();
  for (const file of [...component].sort()) {
    const chain = chainThrough(graph, component, file);
    const key = [...new Set(chain)].sort().join('|');
    if (seen.has(key)) continue;
    seen.add(key);
    failures.push(`  ${chain.map(show).join(' -> ')}`);
  }
}

for (const [file, targets] of graph) {
  const importer = show(file);
  for (const target of targets) {
    const imported = show(target);
    for (const boundary of BOUNDARIES) {
      if (imported.startsWith(boundary.target) && !boundary.from(importer)) {
        failures.push(`${importer} imports ${imported}: ${boundary.rule}`);
      }
    }
  }
}

for (const file of files) {
  const importer = show(file);
  for (const rule of FORBIDDEN_PACKAGES) {
    if (importer.startsWith(rule.from) && importsOf(file, true).some((name) => name === rule.name || name.startsWith(`${rule.name}/`))) {
      failures.push(`${importer} imports ${rule.name}: ${rule.rule}`);
    }
  }
}

if (failures.length > 0) {
  for (const line of failures) console.error(line);
  console.error('check-imports: failed. Cut a cycle by moving the shared types or code to a file both sides can import.');
  process.exit(1);
}
console.log(`check-imports: ${files.length} files, no import cycle, boundaries kept`);
