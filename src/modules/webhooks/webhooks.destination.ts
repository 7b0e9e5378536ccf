import dns from 'node:dns/promises';
import net from 'node:net';

// Where a deployment reachable by others must not send webhooks: an endpoint URL is typed by an
// organiser's promoter, and the worker POSTs to it and shows the first KB of the answer, so an
// address inside the deployment's network (loopback, private ranges, link-local cloud metadata)
// would let a promoter probe it. Checked on the addresses the host name resolves to, at each send,
// and the connection goes to those very addresses (issue 25 item 7): the host name is resolved
// once, and the request's own lookup answers with the checked addresses, so a name that resolves
// differently between the check and the connection (DNS rebinding) cannot reach an internal one.
// The host name stays the request's name: the Host header and TLS (SNI, certificate) use it.

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

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Answers every address a host name resolves to (dns.lookup with `all`). */
export type HostLookup = (host: string) => Promise<ResolvedAddress[]>;

const systemLookup: HostLookup = (host) => dns.lookup(host, { all: true, verbatim: true });
let lookupHost: HostLookup = systemLookup;

/** Tests: the resolver of webhook destinations (null: the system's again). */
export function useDestinationLookup(lookup: HostLookup | null): void {
  lookupHost = lookup ?? systemLookup;
}

/** Where a webhook goes: the URL, its host name, and the addresses it was checked at. */
export interface Destination {
  url: URL;
  /** The host name as the URL has it, without brackets: the Host header and TLS name. */
  host: string;
  addresses: ResolvedAddress[];
}

/**
 * Resolves the URL's host once and checks every address: refused (a problem, to log) when the
 * name does not resolve, or, unless `allowInternal` (development and test), when any address is
 * inside the network. The destination's addresses are then the only ones to connect to
 * (`pinnedLookup`).
 */
export async function resolveDestination(url: string, opts: { allowInternal: boolean }): Promise<{ destination: Destination } | { problem: string }> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  try {
    addresses = await lookupHost(host);
  } catch (err) {
    return { problem: `cannot resolve ${host}: ${(err as { code?: string }).code ?? 'lookup failed'}` };
  }
  if (addresses.length === 0) return { problem: `cannot resolve ${host}: no address` };
  const internal = opts.allowInternal ? undefined : addresses.find((a) => isInternalAddress(a.address));
  if (internal) return { problem: `refused: ${host} resolves to ${internal.address}, an address inside the network` };
  return { destination: { url: parsed, host, addresses } };
}

/** Why the URL's host may not receive webhooks, or null when every address it resolves to is public. */
export async function internalDestinationProblem(url: string): Promise<string | null> {
  const resolved = await resolveDestination(url, { allowInternal: false });
  return 'problem' in resolved ? resolved.problem : null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | ResolvedAddress[], family?: number) => void;

/**
 * The `lookup` of a connection to a destination: whatever name it is asked, it answers the
 * addresses checked by resolveDestination, never a fresh DNS answer.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: { all?: boolean; family?: number | string } | LookupCallback, callback?: LookupCallback): void => {
    const cb = (typeof options === 'function' ? options : callback)!;
    const opts = typeof options === 'function' ? {} : options;
    const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : Number(opts.family ?? 0);
    const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : [...addresses];
    if (usable.length === 0) {
      cb(Object.assign(new Error(`no checked address of family ${family}`), { code: 'ENOTFOUND' }), '');
      return;
    }
    if (opts.all) cb(null, usable.map((a) => ({ ...a })));
    else cb(null, usable[0]!.address, usable[0]!.family);
  };
}
