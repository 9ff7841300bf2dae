import { describe, expect, it } from 'vitest';
import { loadConfig, parseAppStoreUrl, parseTrustProxy } from '../../../server/config/index.js';

describe('TRUST_PROXY', () => {
  it('should trust no proxy by default', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(parseTrustProxy('off')).toBe(false);
  });

  it('should take the proxies as addresses, CIDRs or proxy-addr names', () => {
    expect(parseTrustProxy('10.0.0.1, 10.1.0.0/16,::1,fd00::/8,loopback')).toEqual(['10.0.0.1', '10.1.0.0/16', '::1', 'fd00::/8', 'loopback']);
  });

  it('should refuse to trust everyone, a hop count, or a name it cannot check', () => {
    expect(() => parseTrustProxy('true')).toThrow(/must list the proxies/);
    expect(() => parseTrustProxy('1')).toThrow(/must list the proxies/);
    expect(() => parseTrustProxy('proxy.example.com')).toThrow(/must list the proxies/);
  });
});

describe('the conversion lease', () => {
  it('should last 20 s, renewed every 5 s, whatever the ffmpeg time limit', () => {
    expect(loadConfig({ FFMPEG_TIMEOUT_MS: '120000' })).toMatchObject({ convertLeaseMs: 20_000, convertHeartbeatMs: 5_000 });
    expect(loadConfig({ CONVERT_LEASE_MS: '8000' })).toMatchObject({ convertLeaseMs: 8_000, convertHeartbeatMs: 2_000 });
  });

  it('should refuse a heartbeat slower than half the lease', () => {
    expect(() => loadConfig({ CONVERT_LEASE_MS: '10000', CONVERT_HEARTBEAT_MS: '6000' })).toThrow(/at most half of CONVERT_LEASE_MS/);
  });
});

describe('APP_STORE_URL', () => {
  it('should be unset by default, so the home page promises no app it cannot link to', () => {
    expect(loadConfig({}).appStoreUrl).toBeUndefined();
    expect(parseAppStoreUrl('  ')).toBeUndefined();
  });

  it("should take the app's page on the App Store", () => {
    expect(parseAppStoreUrl(' https://apps.apple.com/us/app/milenotes/id1234567890 ')).toBe('https://apps.apple.com/us/app/milenotes/id1234567890');
  });

  it('should refuse any address a "Download on the App Store" badge must not lead to, naming the setting', () => {
    for (const bad of [
      'http://apps.apple.com/app/id1',
      'https://apps.apple.com.example.net/app/id1',
      'https://example.com/apps.apple.com',
      'https://someone@apps.apple.com/app/id1',
      'https://apps.apple.com:8443/app/id1',
      'javascript:alert(1)',
      'apps.apple.com/app/id1',
    ]) {
      expect(() => parseAppStoreUrl(bad), bad).toThrow(/^APP_STORE_URL must be the app's page on the App Store, https:\/\/apps\.apple\.com\/\.\.\., got '/);
    }
  });
});
