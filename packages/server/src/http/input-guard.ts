/**
 * The input layer every Fastify route shares: JSON bodies are parsed by Fastify's own parser
 * (prototype-poisoning checks kept) and then walked once (kernel/input-checks.ts) for U+0000,
 * unpaired surrogates, numbers beyond 2^53 - 1 and nesting deeper than MAX_JSON_DEPTH; query
 * strings and path parameters are checked for the same text faults before validation, and for
 * numbers that are not finite after it (what the schema's coercion made of "Infinity"). Each
 * fault is a 400 in the surface's envelope naming the field. The send-message API reads its body
 * raw for the HMAC and runs the same walk after its own parse (modules/channel/ingest.ts).
 */
import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { inspectJson, isCleanText, textProblem, type InputFault } from '../kernel/input-checks.js';
import { surfaceCode } from './failures.js';
import { requestSurface } from './surface.js';

export function inputError(request: FastifyRequest, fault: InputFault): AppError {
  return new AppError(surfaceCode('validation', requestSurface(request)), { detail: `${fault.field} ${fault.problem}` });
}

function textFault(part: 'querystring' | 'params', values: unknown): InputFault | undefined {
  if (values === null || typeof values !== 'object') return undefined;
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    const field = `${part}.${isCleanText(name) ? name : JSON.stringify(name)}`;
    if (!isCleanText(name)) return { field, problem: `has a name that ${textProblem(name)}` };
    const list = Array.isArray(value) ? value : [value];
    for (const item of list) {
      if (typeof item === 'string' && !isCleanText(item)) return { field, problem: textProblem(item) };
    }
  }
  return undefined;
}

function numberFault(part: 'querystring' | 'params', values: unknown): InputFault | undefined {
  if (values === null || typeof values !== 'object') return undefined;
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    const list = Array.isArray(value) ? value : [value];
    for (const item of list) {
      if (typeof item === 'number' && !Number.isFinite(item)) return { field: `${part}.${name}`, problem: 'must be a finite number' };
    }
  }
  return undefined;
}

export function registerInputGuard(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Easemob's Web SDK labels bodiless calls (DELETE, some POSTs) as JSON: on the IM surface an
    // empty body is no body (a route that needs one answers its validation error).
    if (body === '' && requestSurface(request) === 'im') return done(null, undefined);
    parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      const fault = inspectJson(value);
      if (fault) return done(inputError(request, fault), undefined);
      return done(null, value);
    });
  });
  // Before schema validation, so a coerced or pattern-checked value never reaches storage.
  app.addHook('preValidation', async (request) => {
    const fault = textFault('params', request.params) ?? textFault('querystring', request.query);
    if (fault) throw inputError(request, fault);
  });
  // After it: the schema turned text into numbers where it asks for them ("1e400" and "Infinity"
  // pass Ajv's coercion as Infinity); only finite ones reach a handler.
  app.addHook('preHandler', (request, _reply, done) => {
    const fault = numberFault('params', request.params) ?? numberFault('querystring', request.query);
    done(fault ? inputError(request, fault) : undefined);
  });
}

type BuildValidator = ReturnType<typeof AjvCompiler>;

/**
 * Fastify's `compilersFactory.buildValidator`: Fastify's own Ajv compiler, twice. Query strings,
 * path parameters and headers arrive as text, so their schemas coerce ("5" to 5, "true" to true);
 * JSON bodies carry their types, and coercing them would read `{"enabled": null}` as false and
 * `"to": 5` as `["5"]`, so body schemas do not.
 */
export function buildValidatorPerPart(): BuildValidator {
  const coercing = AjvCompiler();
  const strict = AjvCompiler();
  type Options = { customOptions?: Record<string, unknown> };
  type Compile = (route: { httpPart?: string }) => unknown;
  return ((externalSchemas: unknown, options: Options) => {
    const forText = (coercing as unknown as (e: unknown, o: Options) => Compile)(externalSchemas, options);
    const forBodies = (strict as unknown as (e: unknown, o: Options) => Compile)(externalSchemas, {
      ...options,
      customOptions: { ...options.customOptions, coerceTypes: false },
    });
    return (route: { httpPart?: string }) => (route.httpPart === 'body' ? forBodies(route) : forText(route));
  }) as unknown as BuildValidator;
}
