/** SHA-256 of a note's bytes, as stored (hex) and as sent in Content-Digest (RFC 9530, base64). */

export async function sha256Hex(data: ArrayBuffer): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
}

export { contentDigestHeader } from '../../contract/contentDigest.js';

export function concatChunks(chunks: readonly ArrayBuffer[]): ArrayBuffer {
  const total = chunks.reduce((sum, c) => sum + c.byteLength, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(new Uint8Array(chunk), offset);
    offset += chunk.byteLength;
  }
  return out.buffer;
}
