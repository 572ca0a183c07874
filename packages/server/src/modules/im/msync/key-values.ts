/**
 * `ext` and `customExts` travel as lists of typed KeyValue entries; Parley stores them as JSON
 * objects. The conversion keeps every JSON type both ways, with the SDK's own typing rules:
 *
 *   object, array, null -> JSON_STRING (JSON text)   string  -> STRING
 *   boolean             -> BOOL (varint 0 or 1)      integer -> INT (varint, also above 2^31)
 *   other number        -> DOUBLE
 *
 * and back: JSON_STRING is parsed, STRING is a string, DOUBLE and FLOAT numbers, BOOL a boolean
 * (any non-zero varint), INT, UINT and LLINT numbers.
 */
import { ValueType } from './schema.js';

/** A KeyValue as protobufjs reads (`longs: String`) and writes it. */
export interface KeyValue {
  key?: string;
  type?: number;
  varintValue?: string | number;
  floatValue?: number;
  doubleValue?: number;
  stringValue?: string;
}

function entry(key: string, value: unknown): KeyValue | undefined {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (typeof value === 'string') return { key, type: ValueType.STRING, stringValue: value };
  if (typeof value === 'boolean') return { key, type: ValueType.BOOL, varintValue: value ? 1 : 0 };
  if (typeof value === 'bigint') return { key, type: ValueType.STRING, stringValue: value.toString() };
  if (typeof value === 'number') {
    if (Number.isNaN(value) || !Number.isFinite(value)) return { key, type: ValueType.STRING, stringValue: String(value) };
    if (Number.isSafeInteger(value)) return { key, type: ValueType.INT, varintValue: String(value) };
    return { key, type: ValueType.DOUBLE, doubleValue: value };
  }
  return { key, type: ValueType.JSON_STRING, stringValue: JSON.stringify(value) };
}

/** A JSON object as KeyValue entries, in key order. */
export function toKeyValues(object: Record<string, unknown> | undefined): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, value] of Object.entries(object ?? {})) {
    const kv = entry(key, value);
    if (kv) out.push(kv);
  }
  return out;
}

function value(kv: KeyValue): unknown {
  switch (kv.type) {
    case ValueType.JSON_STRING: {
      const text = kv.stringValue ?? '';
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    case ValueType.STRING:
      return kv.stringValue ?? '';
    case ValueType.DOUBLE:
      return kv.doubleValue ?? 0;
    case ValueType.FLOAT:
      return kv.floatValue ?? 0;
    case ValueType.BOOL:
      return Number(kv.varintValue ?? 0) !== 0;
    case ValueType.INT:
    case ValueType.UINT:
    case ValueType.LLINT:
      return Number(kv.varintValue ?? 0);
    default:
      // An untyped entry: whichever value it carries.
      return kv.stringValue ?? kv.doubleValue ?? kv.floatValue ?? (kv.varintValue === undefined ? null : Number(kv.varintValue));
  }
}

/** KeyValue entries as a JSON object; entries without a key are skipped. */
export function fromKeyValues(list: readonly KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) {
    if (typeof kv.key !== 'string' || kv.key === '' || kv.key === '__proto__') continue;
    out[kv.key] = value(kv);
  }
  return out;
}
