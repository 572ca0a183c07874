import { describe, expect, it } from 'vitest';
import { readyLine } from '../../src/ready-line.js';

describe('the ready line', () => {
  it('names the console and the API docs at the bound address and port', () => {
    expect(readyLine({ address: '127.0.0.1', family: 'IPv4', port: 41234 })).toBe(
      'Parley ready: console http://127.0.0.1:41234/console · API docs http://127.0.0.1:41234/docs',
    );
  });

  it('shows a wildcard address as loopback, and IPv6 in brackets', () => {
    expect(readyLine({ address: '0.0.0.0', family: 'IPv4', port: 8080 })).toContain('console http://127.0.0.1:8080/console');
    expect(readyLine({ address: '::', family: 'IPv6', port: 8080 })).toContain('API docs http://[::1]:8080/docs');
    expect(readyLine({ address: '10.1.2.3', family: 'IPv4', port: 80 })).toContain('http://10.1.2.3:80/console');
  });
});
