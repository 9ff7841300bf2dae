import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppleVerifier, IdentityTokenError, JwksUnavailableError, type AppleVerifier } from '../../../server/auth/apple.js';
import { FAKE_APPLE_NONCE, startFakeApple, type FakeApple } from '../../../stand-ins/fakeApple.js';

describe('Sign in with Apple verification', () => {
  let apple: FakeApple;
  let verify: AppleVerifier;

  let fetchesBefore: number;
  // One key server for the file (RSA key generation is slow); each test gets a fresh key cache.
  beforeAll(async () => {
    apple = await startFakeApple();
  });
  afterAll(() => apple.close());
  beforeEach(() => {
    verify = createAppleVerifier({ jwksUrl: apple.jwksUrl, audience: apple.audience, cooldownMs: 0, clockToleranceSeconds: 0 });
    fetchesBefore = apple.fetches();
  });
  const fetches = () => apple.fetches() - fetchesBefore;

  it('accepts a good token and returns Apple’s subject', async () => {
    const identity = await verify(await apple.token({ sub: 'apple-sub-1' }), FAKE_APPLE_NONCE);
    expect(identity.sub).toBe('apple-sub-1');
  });

  it('refuses a token whose payload was tampered with', async () => {
    const [header, payload, sig] = (await apple.token({ sub: 'apple-sub-1' })).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    await expect(verify(`${header}.${forged}.${sig}`, FAKE_APPLE_NONCE)).rejects.toBeInstanceOf(IdentityTokenError);
  });

  it('refuses a token signed by a key Apple never published', async () => {
    await expect(verify(await apple.token({ foreignKey: true, kid: 'test-key-1' }), FAKE_APPLE_NONCE)).rejects.toBeInstanceOf(IdentityTokenError);
  });

  it('refuses an expired token', async () => {
    await expect(verify(await apple.token({ expiresIn: -60 }), FAKE_APPLE_NONCE)).rejects.toThrow(/ERR_JWT_EXPIRED/);
  });

  it('refuses a token from another issuer', async () => {
    await expect(verify(await apple.token({ iss: 'https://evil.example' }), FAKE_APPLE_NONCE)).rejects.toThrow(/ERR_JWT_CLAIM_VALIDATION_FAILED/);
  });

  it('refuses a token meant for another app', async () => {
    await expect(verify(await apple.token({ aud: 'com.other.app' }), FAKE_APPLE_NONCE)).rejects.toThrow(/ERR_JWT_CLAIM_VALIDATION_FAILED/);
  });

  it('accepts the raw nonce or its SHA-256 hex in the token, and refuses another', async () => {
    const raw = 'n0nce-from-the-app';
    const hashed = createHash('sha256').update(raw).digest('hex');
    await expect(verify(await apple.token({ nonce: raw }), raw)).resolves.toMatchObject({ sub: '000123.abc.0456' });
    await expect(verify(await apple.token({ nonce: hashed }), raw)).resolves.toMatchObject({ sub: '000123.abc.0456' });
    await expect(verify(await apple.token({ nonce: hashed }), 'another-nonce')).rejects.toThrow(/nonce mismatch/);
    await expect(verify(await apple.token({ nonce: null }), raw)).rejects.toThrow(/nonce mismatch/);
  });

  it('refuses a sign-in that sends no nonce, even for a token that carries one', async () => {
    await expect(verify(await apple.token({ nonce: 'n0nce' }), '')).rejects.toThrow(/nonce missing/);
  });

  it('caches the keys: many sign-ins fetch the JWKS once', async () => {
    for (let i = 0; i < 5; i++) await verify(await apple.token({ sub: `s${i}` }), FAKE_APPLE_NONCE);
    expect(fetches()).toBe(1);
  });

  it('fetches the JWKS exactly once more when Apple signs with a new key id', async () => {
    await verify(await apple.token(), FAKE_APPLE_NONCE);
    await apple.rotate();
    await verify(await apple.token(), FAKE_APPLE_NONCE);
    await verify(await apple.token(), FAKE_APPLE_NONCE);
    expect(fetches()).toBe(2);
  });

  it('refetches at most once per cooldown for key ids that do not exist', async () => {
    const cooled = createAppleVerifier({ jwksUrl: apple.jwksUrl, audience: apple.audience, cooldownMs: 60_000 });
    await cooled(await apple.token(), FAKE_APPLE_NONCE);
    for (let i = 0; i < 3; i++) await expect(cooled(await apple.token({ kid: `forged-${i}` }), FAKE_APPLE_NONCE)).rejects.toBeInstanceOf(IdentityTokenError);
    expect(fetches()).toBe(1);
  });

  it('reports an unreachable JWKS as our outage, not as a bad token', async () => {
    const offline = createAppleVerifier({ jwksUrl: 'http://127.0.0.1:9/auth/keys', audience: apple.audience });
    await expect(offline(await apple.token(), FAKE_APPLE_NONCE)).rejects.toBeInstanceOf(JwksUnavailableError);
  });
});
