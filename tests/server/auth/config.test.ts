import { describe, expect, it } from 'vitest';
import { APPLE_JWKS_DEFAULT, loadAuthConfig } from '../../../server/auth/config.js';

describe('runner auth settings', () => {
  it('should default to Apple’s JWKS, 15-minute access tokens and 10-minute audio URLs', () => {
    const config = loadAuthConfig({});
    expect(config.appleJwksUrl).toBe(APPLE_JWKS_DEFAULT);
    expect(config.accessTtlSeconds).toBe(900);
    expect(config.audioUrlTtlSeconds).toBe(600);
    expect(config.ephemeralSecret).toBe(true);
  });

  it('should use SESSION_SECRET so every server signs alike, and refuse a short one', () => {
    const secret = 'x'.repeat(40);
    expect(Buffer.from(loadAuthConfig({ SESSION_SECRET: secret }).sessionSecret).toString()).toBe(secret);
    expect(() => loadAuthConfig({ SESSION_SECRET: 'short' })).toThrow(/at least 32 characters/);
  });

  it('should refuse to start in production without SESSION_SECRET or APPLE_AUDIENCE', () => {
    expect(() => loadAuthConfig({ NODE_ENV: 'production', APPLE_AUDIENCE: 'com.milenotes.app' })).toThrow(/SESSION_SECRET is required/);
    expect(() => loadAuthConfig({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40) })).toThrow(/APPLE_AUDIENCE is required/);
    expect(loadAuthConfig({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40), APPLE_AUDIENCE: 'com.milenotes.app' }).ephemeralSecret).toBe(false);
  });
});
