import { isIPv6 } from 'node:net';

/**
 * The key under which a client's connections and uploads are counted. An IPv4 address (also when
 * written IPv4-mapped, `::ffff:1.2.3.4`) is its own key; an IPv6 address counts by its /64, the
 * smallest network a host is usually given, so one host cannot dodge the caps by rotating through
 * the 2^64 addresses it owns.
 */
export function clientKeyOf(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/**
 * The larger network a client's address belongs to, for the connection caps per network: an IPv4
 * /24 or an IPv6 /48 (what one site or one hosting customer usually holds), so that many addresses
 * of one owner count together.
 */
export function networkKeyOf(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^(?:::ffff:)?(\d+\.\d+\.\d+)\.\d+$/i.exec(address);
  if (mapped) return `${mapped[1]!}.0/24`;
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 3).join(':')}::/48`;
}

/** the eight 16-bit groups of an IPv6 address, without a zone id */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => (g.includes('.') ? g : Number.parseInt(g, 16).toString(16)));
}
