import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/kernel/logger.js';

/** A Fastify app with Parley's logger options whose lines are collected, parsed. */
function appLogging(level: 'info' | 'warn') {
  const lines: Array<Record<string, unknown>> = [];
  const app = Fastify({
    logger: { ...loggerOptions(level), stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } },
    disableRequestLogging: true,
  });
  app.get('/log', async (request) => {
    request.log.info({ password: 'hunter2-secret', nested: { clientSecret: 'abc123' } }, 'first');
    request.log.error('second');
    return { ok: true };
  });
  return { app, lines };
}

describe('per-request logger', () => {
  it('writes a request line through a child that carries the request id, with secrets redacted', async () => {
    const { app, lines } = appLogging('info');
    const res = await app.inject({ method: 'GET', url: '/log' });
    expect(res.statusCode).toBe(200);
    expect(lines.map((l) => [l.msg, l.level])).toEqual([
      ['first', 30],
      ['second', 50],
    ]);
    expect(lines[0]?.reqId).toBeTypeOf('string');
    expect(lines[1]?.reqId).toBe(lines[0]?.reqId);
    expect(lines[0]?.password).toBe('[redacted]');
    expect((lines[0]?.nested as Record<string, unknown>).clientSecret).toBe('[redacted]');
    expect(JSON.stringify(lines)).not.toContain('hunter2-secret');
    await app.close();
  });

  it('writes no line below the level', async () => {
    const { app, lines } = appLogging('warn');
    await app.inject({ method: 'GET', url: '/log' });
    expect(lines.map((l) => l.msg)).toEqual(['second']);
    await app.close();
  });
});
