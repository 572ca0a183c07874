import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { loadOrCreateSecretKey, secretBox } from '../../src/kernel/secret-box.js';

describe('secret box (Client Secrets at rest)', () => {
  it('seals and opens; a sealed value reveals nothing and differs each time', () => {
    const box = secretBox(Buffer.alloc(32, 7));
    const a = box.seal('6f1d9e0c2b7a48e5a3c1f0e9d8b7a6c5');
    const b = box.seal('6f1d9e0c2b7a48e5a3c1f0e9d8b7a6c5');
    expect(a).not.toBe(b);
    expect(a).not.toContain('6f1d9e0c');
    expect(box.open(a)).toBe('6f1d9e0c2b7a48e5a3c1f0e9d8b7a6c5');
  });

  it('refuses a value sealed with another key or tampered with', () => {
    const sealed = secretBox(Buffer.alloc(32, 1)).seal('secret');
    expect(() => secretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('xxxxxx').toString('base64url');
    expect(() => secretBox(Buffer.alloc(32, 1)).open(parts.join('.'))).toThrow();
  });

  it('generates DATA_DIR/secret.key once (mode 0600) and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-key-'));
    try {
      const first = loadOrCreateSecretKey(undefined, dir);
      expect(first).toHaveLength(32);
      expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      expect(loadOrCreateSecretKey(undefined, dir).equals(first)).toBe(true);
      const configured = Buffer.alloc(32, 9);
      expect(loadOrCreateSecretKey(configured, dir)).toBe(configured);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads PARLEY_SECRET_KEY as hex or base64 and refuses other lengths', () => {
    expect(loadConfig({ PARLEY_SECRET_KEY: 'ab'.repeat(32) }).secretKey?.equals(Buffer.alloc(32, 0xab))).toBe(true);
    expect(loadConfig({ PARLEY_SECRET_KEY: Buffer.alloc(32, 3).toString('base64') }).secretKey?.equals(Buffer.alloc(32, 3))).toBe(true);
    expect(() => loadConfig({ PARLEY_SECRET_KEY: 'abcd' })).toThrow(ConfigError);
    expect(loadConfig({}).secretKey).toBeUndefined();
  });
});
