import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

describe('config', () => {
  it('has the contract defaults', () => {
    const c = loadConfig({}, '/srv/parley');
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('/srv/parley', 'data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      adminUsername: 'admin',
      adminPassword: undefined,
      allowPrivateCallbacks: false,
      logLevel: 'info',
      workers: true,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads the authentication limits, with a hashing concurrency of half the cores by default', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({ authFailuresPerMinute: 30, passwordHashQueue: 32, trustProxy: [] });
    expect(defaults.passwordHashConcurrency).toBe(Math.max(1, Math.floor(os.availableParallelism() / 2)));
    const c = loadConfig({
      PARLEY_AUTH_FAILURE_LIMIT: '5',
      PARLEY_PASSWORD_HASH_CONCURRENCY: '3',
      PARLEY_PASSWORD_HASH_QUEUE: '0',
      PARLEY_TRUST_PROXY: ' 10.0.0.0/8, 127.0.0.1 ,::1',
    });
    expect(c).toMatchObject({ authFailuresPerMinute: 5, passwordHashConcurrency: 3, passwordHashQueue: 0, trustProxy: ['10.0.0.0/8', '127.0.0.1', '::1'] });
  });

  it('bounds IM sockets by default: 1 MiB outbound buffer, 10 a user, 10,000 an app', () => {
    expect(loadConfig({})).toMatchObject({ imSocketBufferBytes: 1024 * 1024, imSocketsPerUser: 10, imSocketsPerApp: 10_000 });
    expect(loadConfig({ PARLEY_IM_SOCKET_BUFFER_BYTES: '65536', PARLEY_IM_SOCKETS_PER_USER: '4', PARLEY_IM_SOCKETS_PER_APP: '500' })).toMatchObject({
      imSocketBufferBytes: 65536,
      imSocketsPerUser: 4,
      imSocketsPerApp: 500,
    });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/parley',
      DATABASE_URL: 'postgres://u@db:5432/parley',
      REDIS_URL: 'redis://cache:6379',
      PARLEY_ADMIN_USERNAME: 'ops',
      PARLEY_ADMIN_PASSWORD: 'long-enough-pw',
      PARLEY_ALLOW_PRIVATE_CALLBACKS: 'true',
      LOG_LEVEL: 'debug',
      PARLEY_WORKERS: 'false',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/var/lib/parley',
      databaseUrl: 'postgres://u@db:5432/parley',
      redisUrl: 'redis://cache:6379',
      adminUsername: 'ops',
      adminPassword: 'long-enough-pw',
      allowPrivateCallbacks: true,
      logLevel: 'debug',
      workers: false,
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x/y'],
    ['REDIS_URL', 'not a url'],
    ['PARLEY_ALLOW_PRIVATE_CALLBACKS', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['PARLEY_ADMIN_PASSWORD', 'short'],
    ['PARLEY_TOKEN_TTL_SECONDS', '5'],
    ['PARLEY_TRUST_PROXY', 'balancer.internal'],
    ['PARLEY_TRUST_PROXY', '10.0.0.0/33'],
    ['PARLEY_PASSWORD_HASH_CONCURRENCY', '0'],
    ['PARLEY_AUTH_FAILURE_LIMIT', '0'],
    ['PARLEY_IM_SOCKET_BUFFER_BYTES', '1024'],
    ['PARLEY_IM_SOCKETS_PER_USER', '0'],
    ['PARLEY_IM_SOCKETS_PER_APP', '0'],
  ])('rejects %s=%s with a one-line reason naming it', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('outbound connections config', () => {
  it('defaults to 64 connections per origin and a quarter of them per rule or association', () => {
    expect(loadConfig({})).toMatchObject({ outboundConnectionsPerOrigin: 64, outboundConnectionsPerKey: 16 });
    expect(loadConfig({ PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN: '8' })).toMatchObject({ outboundConnectionsPerOrigin: 8, outboundConnectionsPerKey: 2 });
    expect(loadConfig({ PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN: '2' })).toMatchObject({ outboundConnectionsPerKey: 1 });
    expect(loadConfig({ PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN: '100', PARLEY_OUTBOUND_CONNECTIONS_PER_KEY: '99' })).toMatchObject({
      outboundConnectionsPerOrigin: 100,
      outboundConnectionsPerKey: 99,
    });
  });

  it.each([
    [{ PARLEY_OUTBOUND_CONNECTIONS_PER_KEY: '64' }, 'PARLEY_OUTBOUND_CONNECTIONS_PER_KEY must be below PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN (64)'],
    [{ PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN: '10', PARLEY_OUTBOUND_CONNECTIONS_PER_KEY: '12' }, 'must be below PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN (10)'],
    [{ PARLEY_OUTBOUND_CONNECTIONS_PER_KEY: '0' }, 'PARLEY_OUTBOUND_CONNECTIONS_PER_KEY must be an integer'],
    [{ PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN: '1' }, 'PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN must be an integer between 2 and 4096'],
  ])('rejects %o: the budget must leave room in the pool', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
