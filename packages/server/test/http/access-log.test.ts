/**
 * The access log keeps info for the requests a person wants to read: routine reads (health and
 * readiness probes, the metrics scrape, the console's files and the console's own GETs, which
 * re-read every few seconds) are logged at debug, every other request at info.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLevel } from '../../src/http/pipeline.js';
import { ADMIN, createTestApp, login, type TestApp } from '../helpers/app.js';

type LogLine = { level: number; msg?: string; reqId?: string };
const DEBUG = 20;
const INFO = 30;

describe('accessLevel', () => {
  it.each([
    ['GET', '/healthz', {}, 'debug'],
    ['GET', '/readyz?verbose=1', {}, 'debug'],
    ['HEAD', '/metrics', {}, 'debug'],
    ['GET', '/console', {}, 'debug'],
    ['GET', '/console/assets/index.js', {}, 'debug'],
    ['GET', '/api/tenants/1/conversations', { 'x-parley-csrf': '1' }, 'debug'],
    ['GET', '/api/tenants/1/conversations', {}, 'info'],
    ['POST', '/api/tenants/1/conversations/2/accept', { 'x-parley-csrf': '1' }, 'info'],
    ['POST', '/healthz', {}, 'info'],
    ['GET', '/consoles', {}, 'info'],
    ['GET', '/docs', {}, 'info'],
  ] as const)('%s %s %j is logged at %s', (method, url, headers, level) => {
    expect(accessLevel({ method, url, headers })).toBe(level);
  });
});

describe('access log levels of a running app', () => {
  let t: TestApp;
  const lines: LogLine[] = [];
  let token = '';

  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      env: { LOG_LEVEL: 'debug' },
      deps: { logStream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
    });
    token = await login(t.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => t?.close());

  /** The levels of the access-log lines ("incoming request", "request completed") of one request. */
  async function levelsOf(method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}): Promise<number[]> {
    const id = `access-${lines.length}-${Math.random().toString(36).slice(2)}`;
    await t.app.inject({ method, url, headers: { 'x-request-id': id, ...headers } });
    return lines.filter((l) => l.reqId === id && (l.msg === 'incoming request' || l.msg === 'request completed')).map((l) => l.level);
  }

  it('logs probes, metrics and the console files at debug', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics', '/console/']) expect(await levelsOf('GET', url), url).toEqual([DEBUG, DEBUG]);
  });

  it("logs the console's reads at debug and the same read from another client at info", async () => {
    const bearer = { authorization: `Bearer ${token}` };
    expect(await levelsOf('GET', '/api/tenants', { ...bearer, 'x-parley-csrf': '1' })).toEqual([DEBUG, DEBUG]);
    expect(await levelsOf('GET', '/api/tenants', bearer)).toEqual([INFO, INFO]);
  });

  it('logs changes at info, also from the console', async () => {
    expect(await levelsOf('POST', '/api/logout', { authorization: `Bearer ${token}`, 'x-parley-csrf': '1' })).toEqual([INFO, INFO]);
  });
});
