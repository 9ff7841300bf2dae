import { describe, expect, it } from 'vitest';
import { addressKey } from '../../../server/http/client-key.js';

describe('the address the limits count', () => {
  it('should keep an IPv4 address as it is, so a carrier NAT counts as one address', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('should read an IPv4 address written as IPv6 as the IPv4 address', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('should group IPv6 addresses by their /64, however they are written', () => {
    const key = '2001:db8:1:2::/64';
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe(key);
    expect(addressKey('2001:0DB8:0001:0002::1')).toBe(key);
    expect(addressKey('2001:db8:1:2::')).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
  });

  it('should give the same key when an address asks again (keys are remembered)', () => {
    for (let i = 0; i < 2; i++) {
      expect(addressKey('2001:db8:9:9::1')).toBe('2001:db8:9:9::/64');
      expect(addressKey('::ffff:198.51.100.4')).toBe('198.51.100.4');
    }
  });

  it('should keep the zone out of a link-local address', () => {
    expect(addressKey('fe80::1%eth0')).toBe('fe80::/64');
  });

  it('should leave what is not an address as it is, so it still counts as one client', () => {
    expect(addressKey('unknown')).toBe('unknown');
  });
});
