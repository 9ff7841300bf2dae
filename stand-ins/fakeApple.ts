/** A stand-in for Apple's sign-in: key pairs made here, a JWKS served on 127.0.0.1, and identity tokens. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

export interface FakeApple {
  jwksUrl: string;
  audience: string;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  /** Adds a new signing key (a rotation); tokens are signed with the newest key from then on. */
  rotate(): Promise<string>;
  token(claims?: TokenClaims): Promise<string>;
  close(): Promise<void>;
}

/** The nonce a token carries unless told otherwise; sign-ins in tests send it. */
export const FAKE_APPLE_NONCE = 'nonce-made-by-the-test-app';

export interface TokenClaims {
  sub?: string;
  iss?: string;
  aud?: string;
  /** Defaults to FAKE_APPLE_NONCE; null leaves the claim out. */
  nonce?: string | null;
  /** Seconds from now; negative for a token that has expired. */
  expiresIn?: number;
  kid?: string;
  /** Sign with a key that is not in the JWKS. */
  foreignKey?: boolean;
}

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: Record<string, unknown>;
}

async function makeKey(n: number): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `test-key-${n}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startFakeApple(audience = 'com.milenotes.test'): Promise<FakeApple> {
  const keys: Key[] = [await makeKey(1)];
  const stranger = await makeKey(99);
  let fetches = 0;
  const server = http.createServer((req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    jwksUrl: `http://127.0.0.1:${port}/auth/keys`,
    audience,
    fetches: () => fetches,
    async rotate() {
      const key = await makeKey(keys.length + 1);
      keys.push(key);
      return key.kid;
    },
    async token(c = {}) {
      const key = c.foreignKey ? stranger : keys[keys.length - 1]!;
      const now = Math.floor(Date.now() / 1000);
      const nonce = c.nonce === undefined ? FAKE_APPLE_NONCE : c.nonce;
      const jwt = new SignJWT({ ...(nonce === null ? {} : { nonce }), email: 'runner@example.com' })
        .setProtectedHeader({ alg: 'RS256', kid: c.kid ?? key.kid })
        .setIssuer(c.iss ?? 'https://appleid.apple.com')
        .setAudience(c.aud ?? audience)
        .setSubject(c.sub ?? '000123.abc.0456')
        .setIssuedAt(now - 5)
        .setExpirationTime(now + (c.expiresIn ?? 600));
      return jwt.sign(key.privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
