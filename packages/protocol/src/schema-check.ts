/**
 * Checks a value against a TypeBox (JSON Schema) description and says, in words an integrator
 * reads, which field is wrong: "bodies[0].url must be an http(s) URL" rather than "no union
 * member matched". The schema is the one description of the rules; the messages are derived
 * from its keywords. It covers the subset Parley's request bodies use: object (properties,
 * required), array (items, minItems, maxItems), string (minLength, maxLength, format), integer
 * (minimum, maximum), const, null, a union of constants, a union with null, and a union of
 * objects told apart by one constant property (a discriminated union).
 * Properties are checked in the schema's order; properties it does not name are allowed.
 */

/** Named string formats: what each accepts and how its rule reads. */
const FORMATS: Record<string, { test: (value: string) => boolean; reads: string }> = {
  'http-url': { test: isHttpUrl, reads: 'must be an http(s) URL' },
  'non-blank': { test: (value) => value.trim().length > 0, reads: 'must be a non-empty string' },
};

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

export interface SchemaFault {
  /** Where, as property names and item indexes from the checked value, e.g. ['bodies', 0, 'url']. */
  path: Array<string | number>;
  /** The rule, e.g. `must be an http(s) URL`. */
  rule: string;
}

/** The subset of JSON Schema read here (TypeBox's output). */
interface Schema {
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fault = (rule: string): SchemaFault => ({ path: [], rule });

/** `a.b[0].c` for a fault's path. */
export function faultField(path: ReadonlyArray<string | number>): string {
  let field = '';
  for (const step of path) field += typeof step === 'number' ? `[${step}]` : field ? `.${step}` : step;
  return field;
}

/** The first rule of `schema` that `value` breaks, or undefined when it keeps them all. */
export function checkSchema(schema: unknown, value: unknown): SchemaFault | undefined {
  return check(schema as Schema, value);
}

function check(schema: Schema, value: unknown): SchemaFault | undefined {
  if (schema.anyOf) return checkUnion(schema.anyOf, value);
  if (schema.const !== undefined) return value === schema.const ? undefined : fault(`must be ${JSON.stringify(schema.const)}`);
  switch (schema.type) {
    case 'object':
      return checkObject(schema, value);
    case 'array':
      return checkArray(schema, value);
    case 'string':
      return checkString(schema, value);
    case 'integer':
      return checkInteger(schema, value);
    case 'null':
      return value === null ? undefined : fault('must be null');
    default:
      return undefined;
  }
}

function checkObject(schema: Schema, value: unknown): SchemaFault | undefined {
  if (!isObject(value)) return fault('must be an object');
  const properties = schema.properties ?? {};
  for (const key in properties) {
    const field = value[key];
    if (field === undefined && !schema.required?.includes(key)) continue;
    const bad = check(properties[key] as Schema, field);
    if (bad) {
      bad.path.unshift(key);
      return bad;
    }
  }
  return undefined;
}

function checkArray(schema: Schema, value: unknown): SchemaFault | undefined {
  const min = schema.minItems ?? 0;
  if (!Array.isArray(value) || value.length < min) return fault(min > 0 ? 'must be a non-empty array' : 'must be an array');
  if (schema.maxItems !== undefined && value.length > schema.maxItems) return fault(`must hold at most ${schema.maxItems} items`);
  if (!schema.items) return undefined;
  for (let i = 0; i < value.length; i++) {
    const bad = check(schema.items, value[i]);
    if (bad) {
      bad.path.unshift(i);
      return bad;
    }
  }
  return undefined;
}

function checkString(schema: Schema, value: unknown): SchemaFault | undefined {
  const min = schema.minLength ?? 0;
  if (typeof value !== 'string' || value.length < min) {
    return fault(min === 0 ? 'must be a string' : min === 1 ? 'must be a non-empty string' : `must be a string of at least ${min} characters`);
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return fault(`must be at most ${schema.maxLength} characters`);
  const format = schema.format === undefined ? undefined : FORMATS[schema.format];
  if (format && !format.test(value)) return fault(format.reads);
  return undefined;
}

/** An integer rule reads as a whole: "must be a non-negative integer", "must be an integer from 1 to 9". */
function checkInteger(schema: Schema, value: unknown): SchemaFault | undefined {
  const { minimum: min, maximum: max } = schema;
  if (typeof value === 'number' && Number.isInteger(value) && (min === undefined || value >= min) && (max === undefined || value <= max)) return undefined;
  if (min === 0 && max === undefined) return fault('must be a non-negative integer');
  if (min !== undefined && max !== undefined) return fault(`must be an integer from ${min} to ${max}`);
  if (min !== undefined) return fault(`must be an integer of at least ${min}`);
  if (max !== undefined) return fault(`must be an integer of at most ${max}`);
  return fault('must be an integer');
}

/** What a union is made of, worked out once per union schema. */
interface UnionShape {
  /** The union's constants when every member is one (`one of txt, img`). */
  constants?: unknown[];
  /** A union with null: the other member. */
  nullable?: Schema;
  /** The property every member holds a constant in, and the member for each constant. */
  tag?: { key: string; members: Map<unknown, Schema> };
}

const shapes = new WeakMap<Schema[], UnionShape>();

function unionShape(members: Schema[]): UnionShape {
  let shape = shapes.get(members);
  if (shape) return shape;
  shape = {};
  if (members.every((m) => m.const !== undefined)) shape.constants = members.map((m) => m.const);
  else if (members.length === 2 && members.some((m) => m.type === 'null')) shape.nullable = members.find((m) => m.type !== 'null');
  else {
    const first = members[0]?.properties ?? {};
    const key = Object.keys(first).find((k) => members.every((m) => m.properties?.[k]?.const !== undefined));
    if (key === undefined) throw new Error('checkSchema: a union of objects needs one constant property that tells the members apart');
    shape.tag = { key, members: new Map(members.map((m) => [m.properties?.[key]?.const, m])) };
  }
  shapes.set(members, shape);
  return shape;
}

function checkUnion(members: Schema[], value: unknown): SchemaFault | undefined {
  const shape = unionShape(members);
  if (shape.constants) return shape.constants.includes(value) ? undefined : fault(`must be one of ${shape.constants.join(', ')}`);
  if (shape.nullable) return value === null ? undefined : check(shape.nullable, value);
  const tag = shape.tag as NonNullable<UnionShape['tag']>;
  if (!isObject(value)) return fault('must be an object');
  const member = tag.members.get(value[tag.key]);
  if (member) return check(member, value);
  return { path: [tag.key], rule: `must be one of ${[...tag.members.keys()].join(', ')}` };
}
