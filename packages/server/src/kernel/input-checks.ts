/**
 * Checks every request's input passes before any handler sees it (http/input-guard.ts, and the
 * send-message ingest after its JSON parse): text that PostgreSQL cannot store (U+0000) or that
 * is not Unicode (an unpaired surrogate), numbers beyond what a JavaScript number holds exactly
 * (2^53 - 1, below BIGINT's range), and JSON nested deeper than any of Parley's bodies needs.
 * Pure, and iterative: a 10,000-level body must not overflow the stack here or anywhere later.
 */

declare global {
  interface String {
    /** ES2024; present on Node 20. */
    isWellFormed(): boolean;
  }
}

/** Deepest JSON accepted: the root object is level 1. Parley's deepest body needs 4. */
export const MAX_JSON_DEPTH = 32;

export interface InputFault {
  /** The field, e.g. `body.bodies[0].msg` or `querystring.limit`. */
  field: string;
  /** What is wrong with it, e.g. `contains U+0000`. */
  problem: string;
}

/** Whether a string is storable text: no U+0000, no unpaired surrogate. */
export function isCleanText(s: string): boolean {
  return s.isWellFormed() && !s.includes('\0');
}

export function textProblem(s: string): string {
  return s.includes('\0') ? 'contains U+0000' : 'contains an unpaired surrogate (not UTF-16 text)';
}

// V8 quotes up to a few dozen characters of the input in a JSON.parse error; they may be a password.
const JSON_EXCERPT = /(?:, )?(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/;

/** A JSON.parse error's message without the excerpt of the input V8 quotes in it. */
export function jsonSyntaxDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  return message.replace(JSON_EXCERPT, '') || 'not valid JSON';
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

// Reused between walks (one walk runs at a time: it is synchronous): the containers met, each
// with its parent, key and depth, so the path of a bad field is rebuilt only when one is found.
const nodes: object[] = [];
const parents: number[] = [];
const keys: (string | number)[] = [];
const depths: number[] = [];
const pending: number[] = [];

function pathOf(prefix: string, node: number, key: string | number | undefined): string {
  const parts: string[] = [];
  if (key !== undefined) parts.push(segment(key));
  for (let at = node; at > 0; at = parents[at] as number) parts.push(segment(keys[at] as string | number));
  return prefix + parts.reverse().join('').replace(/^\./, prefix ? '.' : '');
}

function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** The problem of one scalar value, or undefined when it is acceptable. */
function scalarProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return isCleanText(value) ? undefined : textProblem(value);
  if (typeof value === 'number' && !(value <= Number.MAX_SAFE_INTEGER && value >= -Number.MAX_SAFE_INTEGER)) {
    return `must be a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;
  }
  return undefined;
}

// State of the walk in progress (module-level so that a walk allocates nothing per container).
let count = 0;
let top = 0;
const EMPTY: object = {};

/** Checks one child of container `parent`: queues a container, checks a scalar. */
function visit(value: unknown, parent: number, key: string | number, depth: number, prefix: string, maxDepth: number): InputFault | undefined {
  if (value !== null && typeof value === 'object') {
    if (depth > maxDepth) return { field: pathOf(prefix, parent, key), problem: `is nested deeper than ${maxDepth} levels` };
    nodes[count] = value;
    parents[count] = parent;
    keys[count] = key;
    depths[count] = depth;
    pending[top++] = count++;
    return undefined;
  }
  const problem = scalarProblem(value);
  return problem ? { field: pathOf(prefix, parent, key), problem } : undefined;
}

/** The first fault among the children of container `id`. */
function visitChildren(id: number, prefix: string, maxDepth: number): InputFault | undefined {
  const node = nodes[id] as Record<string, unknown> | unknown[];
  const depth = (depths[id] as number) + 1;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const fault = visit(node[i], id, i, depth, prefix, maxDepth);
      if (fault) return fault;
    }
    return undefined;
  }
  for (const key in node) {
    if (!isCleanText(key)) return { field: pathOf(prefix, id, key), problem: `has a name that ${textProblem(key)}` };
    const fault = visit(node[key], id, key, depth, prefix, maxDepth);
    if (fault) return fault;
  }
  return undefined;
}

/**
 * The first fault of a parsed JSON value, or undefined. `prefix` names the root in the fault's
 * field (`body`, or '' for a body whose fields are named bare). One iterative pass.
 */
export function inspectJson(root: unknown, prefix = 'body', maxDepth = MAX_JSON_DEPTH): InputFault | undefined {
  if (root === null || typeof root !== 'object') {
    const problem = scalarProblem(root);
    return problem ? { field: prefix || 'body', problem } : undefined;
  }
  count = 1;
  top = 0;
  nodes[0] = root;
  depths[0] = 1;
  pending[top++] = 0;
  let fault: InputFault | undefined;
  while (top > 0 && !fault) fault = visitChildren(pending[--top] as number, prefix, maxDepth);
  // Drop the references so a walked body is not kept alive until the next walk.
  for (let i = 0; i < count; i++) nodes[i] = EMPTY;
  return fault;
}
