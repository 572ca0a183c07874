/**
 * Contract 5: callback and push URLs must not reach loopback, private, link-local, metadata or
 * other non-public addresses, unless PARLEY_ALLOW_PRIVATE_CALLBACKS is set.
 */
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can reach private IPv4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10],
  ['ff00::', 8], // multicast
  ['2001:db8::', 32],
  ['fd00:ec2::254', 128], // AWS metadata over IPv6
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is not a public unicast address. */
export function isInternalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return blocked.check(mapped[1] as string, 'ipv4');
    return blocked.check(bare, 'ipv6');
  }
  return blocked.check(bare, 'ipv4');
}

/** Parses and checks the URL's shape; returns a reason when it is not acceptable. */
export function checkUrlShape(raw: string): { url: URL } | { reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { reason: 'the scheme must be http or https' };
  if (url.username || url.password) return { reason: 'credentials in the URL are not allowed' };
  if (!url.hostname) return { reason: 'the URL has no host' };
  if (raw.length > 2048) return { reason: 'the URL is longer than 2048 characters' };
  return { url };
}
