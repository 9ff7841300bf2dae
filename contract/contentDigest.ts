/** The Content-Digest request header (RFC 9530) for a note, from its SHA-256 as notes keep it: lower-case hex. */
export function contentDigestHeader(sha256Hex: string): string {
  const bytes = sha256Hex.match(/../g)?.map((pair) => parseInt(pair, 16)) ?? [];
  return `sha-256=:${btoa(String.fromCharCode(...bytes))}:`;
}
