import { describe, expect, it } from 'vitest';
import { loadConfig, parseTrustProxy } from '../../../server/config/index.js';

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
