/**
 * Which client the per-address limits count: an IPv4 address as it is (a carrier NAT's crowd shares
 * one, and its budget is sized for that), an IPv6 address by its /64, since a phone holds a whole
 * /64 and changes the address inside it at will (privacy addresses), so counting the address alone
 * would let one phone count as millions. An IPv4 address written as IPv6 (::ffff:a.b.c.d) is IPv4.
 */
import ipaddr from 'ipaddr.js';

// Each upload asks three times (open uploads, the look before its bytes, its commit), and a server
// sees the same few addresses over and over: parsed once each, the memory bounded by a plain reset.
const known = new Map<string, string>();
const KNOWN_MAX = 10_000;

export function addressKey(ip: string): string {
  let key = known.get(ip);
  if (key === undefined) {
    if (known.size >= KNOWN_MAX) known.clear();
    key = keyOf(ip);
    known.set(ip, key);
  }
  return key;
}

function keyOf(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}
