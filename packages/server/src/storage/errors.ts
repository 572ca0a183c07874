import { Conflict } from '../kernel/unit-of-work.js';

/** Recognises a unique-constraint violation from either engine. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  'SQLITE_BUSY',
]);

/**
 * True for failures that mean "a backing service is unreachable right now" (PostgreSQL down, a
 * dropped connection, Redis gone, SQLite locked past its timeout): the request may succeed later
 * and answers 503 rather than 500.
 */
export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.message === 'string' && /Connection terminated|Connection is closed|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== error && isUnavailable(e.cause);
}

/** The engine's conflict errors as the domain's Conflict (kernel/unit-of-work.ts); anything else as it is. */
export function asDomainError(error: unknown): unknown {
  if (error instanceof Conflict) return error;
  if (isUniqueViolation(error)) return new Conflict('unique', { cause: error });
  const code = (error as { code?: unknown } | null)?.code;
  // PostgreSQL: deadlock detected, serialization failure.
  if (code === '40P01' || code === '40001') return new Conflict('contention', { cause: error });
  return error;
}

/**
 * A repository whose methods report conflicts as the domain's Conflict: each method's rejection
 * goes through asDomainError. For the repositories whose writes can meet a unique key (names).
 */
export function withDomainErrors<R extends object>(repo: R): R {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(repo)) {
    wrapped[name] =
      typeof value === 'function'
        ? (...args: unknown[]) => {
            try {
              const out: unknown = (value as (...a: unknown[]) => unknown).apply(repo, args);
              return out instanceof Promise ? out.catch((error: unknown) => Promise.reject(asDomainError(error))) : out;
            } catch (error) {
              throw asDomainError(error);
            }
          }
        : value;
  }
  return wrapped as R;
}
