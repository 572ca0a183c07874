/**
 * What the OpenAPI completeness test asks of every operation in /openapi.json, as one function
 * that lists every offender by method and path (so routes added elsewhere show up by name).
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, unknown> } };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/**
 * Operations anyone may call: every other operation names its security scheme. The msync gateway
 * (`GET /ws`, `GET /websocket`) authenticates in its first frame, after the upgrade.
 */
export const PUBLIC_OPERATIONS = new Set(['POST /api/login', 'POST /api/logout', 'GET /api/media/{id}', 'GET /media/{id}', 'POST /{org}/{app}/token', 'GET /ws', 'GET /websocket']);

const hasExample = (media: any): boolean => media !== undefined && (media.example !== undefined || (media.examples !== undefined && Object.keys(media.examples).length > 0));

const jsonSchemaOf = (response: any): unknown => response?.content?.['application/json']?.schema;

/** Every problem of one operation, as short phrases. */
function problemsOf(path: string, method: string, op: any): string[] {
  const problems: string[] = [];
  const name = `${method.toUpperCase()} ${path}`;
  if (!op.summary) problems.push('no summary');
  if (!Array.isArray(op.tags) || op.tags.length === 0) problems.push('no tags');

  // Security stated on the operation itself; an empty list only for the public operations.
  if (!Array.isArray(op.security)) problems.push('no security stated');
  const authenticated = Array.isArray(op.security) && op.security.length > 0;
  if (Array.isArray(op.security) && !authenticated && !PUBLIC_OPERATIONS.has(name)) problems.push('no security scheme (and not a public operation)');

  // Every path parameter declared, with a schema.
  const params: any[] = op.parameters ?? [];
  for (const [, param] of path.matchAll(/\{([^}]+)\}/g)) {
    const declared = params.find((p) => p.in === 'path' && p.name === param);
    if (!declared?.schema) problems.push(`path parameter ${param} not declared`);
  }
  for (const p of params) if (!p.schema && !p.content) problems.push(`parameter ${p.name} has no schema`);

  // A body where the method takes one, unless the operation says it takes none (x-no-body).
  const media = op.requestBody ? Object.values(op.requestBody.content ?? {}) : [];
  if (op.requestBody && (media.length === 0 || media.some((m: any) => !m.schema))) problems.push('request body without a schema');
  if (!op.requestBody && ['post', 'put', 'patch'].includes(method) && op['x-no-body'] !== true) problems.push('no request body schema (or x-no-body)');

  // A success answer with a schema, and the error envelope of the surface for each 4xx.
  const statuses = Object.keys(op.responses ?? {});
  const successes = statuses.filter((s) => /^2\d\d$/.test(s));
  if (successes.length === 0 && !statuses.includes('101')) problems.push('no 2xx response');
  for (const s of successes) {
    if (s !== '204' && !Object.values(op.responses[s].content ?? {}).some((m: any) => m.schema)) problems.push(`${s} response without a schema`);
  }
  const envelope = path === '/api' || path.startsWith('/api/') ? '#/components/schemas/ApiError' : '#/components/schemas/ImError';
  const errors = statuses.filter((s) => /^4\d\d$/.test(s));
  if (errors.length === 0) problems.push('no 4xx response');
  for (const s of errors) {
    const schema = jsonSchemaOf(op.responses[s]) as { $ref?: string } | undefined;
    if (schema?.$ref !== envelope) problems.push(`${s} response is not the ${envelope.split('/').pop()} envelope`);
  }
  if (authenticated && !errors.includes('401')) problems.push('authenticated but no 401 response');

  // One example: of the request body, or of the success answer; a socket (101) shows its frames in its description.
  const examples = [...media, ...successes.flatMap((s) => Object.values(op.responses[s].content ?? {}))];
  const socketFrames = statuses.includes('101') && /`\{".+?\}`/.test(op.description ?? '');
  if (!examples.some(hasExample) && !socketFrames) problems.push('no example (request body or success response)');
  return problems;
}

/** `METHOD path: problem` for every problem of every operation, sorted. */
export function auditOpenApi(doc: Doc): string[] {
  const offenders: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      for (const problem of problemsOf(path, method, op)) offenders.push(`${method.toUpperCase()} ${path}: ${problem}`);
    }
  }
  return offenders.sort();
}

/** Every `$ref` in the document that names no component. */
export function danglingRefs(doc: Doc): string[] {
  const names = new Set(Object.keys(doc.components?.schemas ?? {}));
  const dangling = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = value.replace('#/components/schemas/', '');
        if (!value.startsWith('#/components/schemas/') || !names.has(name)) dangling.add(value);
      } else walk(value);
    }
  };
  walk(doc.paths);
  return [...dangling].sort();
}
