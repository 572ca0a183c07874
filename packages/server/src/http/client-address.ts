/**
 * The client's address for per-IP limits and the access log. Without trusted proxies it is the
 * socket's peer. Behind a load balancer every request would come from the balancer's address, so
 * one stranger could exhaust a limit shared by everyone: the balancers' addresses are configured
 * (PARLEY_TRUST_PROXY) and then the client is the nearest address in `X-Forwarded-For` that is
 * not one of them. `clientAddressOf` is the one reading of it: the send-message lane calls it, and
 * Fastify requests carry it as `request.clientAddress` (http/plugins/pipeline.ts).
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export type TrustProxy = (address: string) => boolean;

/** The client address of a request as it arrived on the socket. */
export type ClientAddressOf = (req: IncomingMessage) => string;

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** A predicate over `addresses` (IPs or CIDR ranges); undefined when the list is empty. */
export function trustProxy(addresses: readonly string[]): TrustProxy | undefined {
  if (addresses.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of addresses) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return (address) => {
    const mapped = MAPPED_V4.exec(address);
    if (mapped) return list.check(mapped[1]!, 'ipv4');
    if (isIPv4(address)) return list.check(address, 'ipv4');
    return isIPv6(address) && list.check(address, 'ipv6');
  };
}

/** The client of a raw request: `peer`, or, when `peer` is trusted, the first untrusted hop of `X-Forwarded-For`. */
export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trusted: TrustProxy | undefined): string {
  if (!trusted || !forwardedFor || !trusted(peer)) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!.trim();
    if (!hop) break;
    client = hop;
    if (!trusted(hop)) break;
  }
  return client;
}

/** The client address of any request, behind the `trusted` proxies (none: the socket's peer). */
export function clientAddressOf(trusted: TrustProxy | undefined): ClientAddressOf {
  return (req) => clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], trusted);
}
