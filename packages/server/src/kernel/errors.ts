import { ERRORS, formatErrorMessage, type ErrorCode } from '@parley/protocol';

/**
 * The only error type domain code throws for client-visible failures. The HTTP error handler
 * renders it in the surface's envelope from the registry in @parley/protocol.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly params: Readonly<Record<string, unknown>> = {},
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(formatErrorMessage(code, params), options.cause === undefined ? undefined : { cause: options.cause });
    this.status = ERRORS[code].status;
    this.headers = options.headers ?? {};
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
