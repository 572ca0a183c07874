/**
 * The line `npm start` prints once Parley listens: where to open the console and the API docs,
 * from the address the server is bound to (so `PORT=0` shows the port it got).
 */
import type { AddressInfo } from 'node:net';

/** The base URL a browser on this machine opens for a bound address; a wildcard address is reached on loopback. */
export function localBaseUrl(address: AddressInfo): string {
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

export function readyLine(address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') return `Parley ready on ${address ?? 'an unknown address'}: console at /console, API docs at /docs`;
  const base = localBaseUrl(address);
  return `Parley ready: console ${base}/console · API docs ${base}/docs`;
}
