/** Reads the SHA-256 out of an RFC 9530 Content-Digest header. */

/** Lower-case hex SHA-256 from `sha-256=:<base64>:`, or undefined when absent or malformed. */
export function sha256FromContentDigest(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return undefined;
  for (const member of value.split(',')) {
    const match = /^\s*sha-256\s*=\s*:([A-Za-z0-9+/]+={0,2}):\s*$/i.exec(member);
    if (!match) continue;
    const bytes = Buffer.from(match[1]!, 'base64');
    if (bytes.length === 32) return bytes.toString('hex');
  }
  return undefined;
}
