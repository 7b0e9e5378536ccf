import dns from 'node:dns/promises';
import net from 'node:net';

// Where a deployment reachable by others must not send webhooks: an endpoint URL is typed by an
// organiser's promoter, and the worker POSTs to it and shows the first KB of the answer, so an
// address inside the deployment's network (loopback, private ranges, link-local cloud metadata)
// would let a promoter probe it. Checked on the addresses the host name resolves to, at each send.
// A name that resolves differently between this check and the connection (DNS rebinding) is not
// covered; a deployment that needs that closed puts an egress proxy or firewall in front.

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) BLOCKED.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) BLOCKED.addSubnet(prefix, bits, 'ipv6');

/** True for an address a webhook may not be sent to from a production or pre-production deployment. */
export function isInternalAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why the URL's host may not receive webhooks, or null when every address it resolves to is public. */
export async function internalDestinationProblem(url: string): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string }[];
  try {
    addresses = await dns.lookup(host, { all: true, verbatim: true });
  } catch (err) {
    return `cannot resolve ${host}: ${(err as { code?: string }).code ?? 'lookup failed'}`;
  }
  const internal = addresses.find((a) => isInternalAddress(a.address));
  return internal ? `refused: ${host} resolves to ${internal.address}, an address inside the network` : null;
}
