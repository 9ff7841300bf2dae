/**
 * Sealing a link's token for the phone that opened it (device_links.sealed_token): AES-256-GCM under
 * a key derived from the session secret (HKDF), bound to the link's id, so the database alone opens
 * no recorder, a sealed token cannot be moved to another link's row, and every server with the same
 * SESSION_SECRET opens what another sealed. A new secret leaves old seals unreadable: those links
 * drop off the installed app's list until the phone opens them again.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface TokenSeal {
  seal(linkId: string, token: string): string;
  /** The token, or undefined when the seal does not open (another secret, or tampered). */
  open(linkId: string, sealed: string): string | undefined;
}

export function createTokenSeal(sessionSecret: Uint8Array): TokenSeal {
  const key = Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), 'milenotes device links v1', 32));
  return {
    seal(linkId, token) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(linkId));
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(linkId, sealed) {
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length < 12 + 16 + 1) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
        decipher.setAAD(Buffer.from(linkId));
        decipher.setAuthTag(bytes.subarray(bytes.length - 16));
        return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
