/** The pure CORS origin rule (modules/im/origins.ts). */
import { describe, expect, it } from 'vitest';
import { corsOrigin, normaliseOrigin, normaliseOrigins } from '../../src/modules/im/origins.js';

describe('allowed origins', () => {
  it('answers * for every origin, the origin itself when listed, nothing otherwise', () => {
    expect(corsOrigin(['*'], undefined)).toBe('*');
    expect(corsOrigin(['*'], 'https://a.example')).toBe('*');
    expect(corsOrigin(['https://a.example'], 'https://A.example')).toBe('https://A.example');
    expect(corsOrigin(['https://a.example'], 'https://b.example')).toBeUndefined();
    expect(corsOrigin(['https://a.example'], undefined)).toBeUndefined();
    expect(corsOrigin([], 'https://a.example')).toBeUndefined();
  });

  it('normalises entries to lower-case origins and refuses anything else', () => {
    expect(normaliseOrigin(' HTTPS://A.example:8443/ ')).toBe('https://a.example:8443');
    expect(normaliseOrigin('http://localhost:3000')).toBe('http://localhost:3000');
    for (const bad of ['a.example', 'ftp://a.example', 'https://a.example/x', 'https://a.example?q', 'https://u@a.example', 'null']) {
      expect(typeof normaliseOrigin(bad), bad).toBe('object');
    }
    expect(normaliseOrigins(['https://a.example', 'https://A.example/'])).toEqual(['https://a.example']);
    expect(() => normaliseOrigins(Array.from({ length: 51 }, (_, i) => `https://a${i}.example`))).toThrow(/at most 50/);
  });
});
