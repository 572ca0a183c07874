/**
 * Field-precise validation of a customer message (spec 2.2, contract 3.2) against its one
 * description, the `CustomerMessage` schema (channel.ts); the readable error is derived from the
 * schema's keywords (schema-check.ts). Pure: the server's ingest and the SDK (before sending)
 * use the same rules.
 */
import { CustomerMessage } from './channel.js';
import { checkSchema, faultField } from './schema-check.js';

export type ValidationResult = { ok: true; message: CustomerMessage } | { ok: false; field: string; detail: string };

/** Checks a parsed JSON value against the rules of a customer message. */
export function validateCustomerMessage(value: unknown): ValidationResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, field: 'body', detail: 'body must be a JSON object' };
  const bad = checkSchema(CustomerMessage, value);
  if (!bad) return { ok: true, message: value as CustomerMessage };
  const field = faultField(bad.path);
  return { ok: false, field, detail: `${field} ${bad.rule}` };
}
