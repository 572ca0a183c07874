/**
 * Fastify's `schemaErrorFormatter`: one message per request, naming the field by the part of the
 * request and its path in it (`body.bodies[0].type must be one of txt, img, audio, file`, as the
 * input checks of http/input-guard.ts name them), never Ajv's dump of a union's members. The rule is worded by `checkSchema` (packages/protocol/src/schema-check.ts, the words
 * of the send-message validator) where it covers the schema, else from Ajv's keyword.
 * Needs Ajv's `verbose` option (each error carries its schema and the value).
 */
import { checkSchema, faultField } from '@parley/protocol';
import type { FastifySchemaValidationError } from 'fastify';

type Path = Array<string | number>;
type Schema = Record<string, unknown>;

interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
  parentSchema?: Schema;
  data?: unknown;
}

const FORMAT_WORDS: Record<string, string> = {
  email: 'an e-mail address',
  uuid: 'a UUID',
  uri: 'a URI',
  'date-time': 'a date and time (RFC 3339)',
  date: 'a date (YYYY-MM-DD)',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** `/bodies/0/type` as ['bodies', 0, 'type']. */
function pathOf(instancePath: string): Path {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => {
      const step = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^\d+$/.test(step) ? Number(step) : step;
    });
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const typeWords = (type: unknown): string =>
  String(type)
    .split(',')
    .map((t) => TYPE_WORDS[t] ?? t)
    .join(' or ');

/** The rule an Ajv error states, in words. */
function ruleOf(error: AjvError): string {
  const { params, parentSchema } = error;
  const limit = Number(params.limit);
  switch (error.keyword) {
    case 'type':
      return `must be ${typeWords(params.type)}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'minLength':
      return limit === 1 ? 'must be a non-empty string' : `must be at least ${limit} characters`;
    case 'maxLength':
      return `must be at most ${limit} characters`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'minItems':
      return limit === 1 ? 'must be a non-empty array' : `must hold at least ${limit} items`;
    case 'maxItems':
      return `must hold at most ${limit} items`;
    case 'uniqueItems':
      return 'must not repeat an item';
    case 'pattern':
      return typeof parentSchema?.description === 'string' ? `must be ${parentSchema.description}` : `must match the pattern ${String(params.pattern)}`;
    case 'format':
      return `must be ${FORMAT_WORDS[String(params.format)] ?? `in the format ${String(params.format)}`}`;
    case 'minProperties':
      return `must have at least ${limit} field${limit === 1 ? '' : 's'}`;
    case 'maxProperties':
      return `must have at most ${limit} fields`;
    default:
      return error.message ?? 'is not valid';
  }
}

/**
 * A union none of whose members matched: the member of the value's own type, when there is one,
 * tells the real problem (its errors come before the union's in Ajv's list).
 */
function unionProblem(error: AjvError, errors: AjvError[], name: (extra: Path) => string, part: string): string {
  const members = (error.parentSchema?.anyOf ?? error.parentSchema?.oneOf ?? []) as Schema[];
  const index = memberFor(members, error.data);
  if (index >= 0) {
    const prefix = `${error.schemaPath}/${index}/`;
    const inner = errors.filter((e) => e.schemaPath.startsWith(prefix));
    const last = inner[inner.length - 1];
    if (last) return problemOf(last, errors, part);
  }
  const types = [...new Set(members.map((m) => (m.const !== undefined ? JSON.stringify(m.const) : typeWords(m.type))))];
  return `${name([])} must be ${types.join(' or ')}`;
}

/** The member meant for `value`: of its type and, among objects, with its constant properties (a tag) matching. */
function memberFor(members: Schema[], value: unknown): number {
  const type = jsonType(value);
  const ofType = members.map((m, i) => [m, i] as const).filter(([m]) => m.type === type || (m.type === 'number' && type === 'integer'));
  const tagged = ofType.find(([m]) => {
    const properties = Object.entries((m.properties ?? {}) as Record<string, Schema>).filter(([, p]) => p.const !== undefined);
    return properties.length > 0 && properties.every(([key, p]) => (value as Record<string, unknown>)[key] === p.const);
  });
  return (tagged ?? ofType[0])?.[1] ?? -1;
}

function problemOf(error: AjvError, errors: AjvError[], part: string): string {
  const path = pathOf(error.instancePath);
  const name = (extra: Path) => faultField([part, ...path, ...extra]);
  switch (error.keyword) {
    case 'required':
      return `${name([String(error.params.missingProperty)])} is required`;
    case 'additionalProperties':
      return `${name([String(error.params.additionalProperty)])} is not a known field`;
  }
  if (error.parentSchema) {
    try {
      const fault = checkSchema(error.parentSchema, error.data);
      if (fault) return `${name(fault.path)} ${fault.rule}`;
    } catch {
      // A union checkSchema cannot tell apart: worded below.
    }
  }
  if (error.keyword === 'anyOf' || error.keyword === 'oneOf') return unionProblem(error, errors, name, part);
  return `${name([])} ${ruleOf(error)}`;
}

/**
 * One message for a failed validation. With Ajv's `allErrors` off, the last error is the
 * outermost rule that failed; a union's members' errors come before it.
 */
export function validationMessage(errors: readonly FastifySchemaValidationError[], part: string): string {
  const list = errors as unknown as AjvError[];
  const last = list[list.length - 1];
  return last ? problemOf(last, list, part) : `${part} is not valid`;
}

/** Fastify's `schemaErrorFormatter`. */
export function schemaErrorFormatter(errors: FastifySchemaValidationError[], dataVar: string): Error {
  return new Error(validationMessage(errors, dataVar));
}
