import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LazyChildLogger, lazyChildLoggerFactory, loggerOptions } from '../../src/kernel/logger.js';

function logger(level: 'info' | 'warn') {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(loggerOptions(level), { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  let children = 0;
  const child = log.child.bind(log);
  log.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof log.child;
  return { log, lines, children: () => children };
}

describe('per-request logger', () => {
  it('makes no child logger for lines below the level', () => {
    const { log, lines, children } = logger('warn');
    const request = new LazyChildLogger(log, { reqId: 'r-1' });
    request.info({ code: 'invalid_message' }, 'bad request');
    request.debug('detail');
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
    expect(request.level).toBe('warn');
    expect(request.isLevelEnabled('info')).toBe(false);
  });

  it('writes enabled lines through one child that carries the bindings, redacted', () => {
    const { log, lines, children } = logger('info');
    const request = new LazyChildLogger(log, { reqId: 'r-2' });
    request.info({ password: 'hunter2-secret' }, 'first');
    request.error('second');
    expect(children()).toBe(1);
    expect(lines.map((l) => [l.reqId, l.msg, l.level])).toEqual([
      ['r-2', 'first', 30],
      ['r-2', 'second', 50],
    ]);
    expect(lines[0]?.password).toBe('[redacted]');
    expect(request.bindings()).toEqual({ reqId: 'r-2' });
  });

  it('hands options (a route log level) to pino at once', () => {
    const { log, lines } = logger('warn');
    const routeLogger = lazyChildLoggerFactory(log, { reqId: 'r-3' }, { level: 'info' }) as typeof log;
    expect(routeLogger).not.toBeInstanceOf(LazyChildLogger);
    routeLogger.info('route line');
    expect(lines.map((l) => l.msg)).toEqual(['route line']);
    expect(lazyChildLoggerFactory(log, { reqId: 'r-4' }, {})).toBeInstanceOf(LazyChildLogger);
  });
});
