/** PUSH_HOSTS (server/config/push-hosts.ts) and the check every endpoint meets before the server calls it (server/push/hosts.ts). */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PUSH_HOSTS, parsePushHosts } from '../../../server/config/push-hosts.js';
import { checkEndpoint } from '../../../server/push/hosts.js';

const allowed = (hosts: string, endpoint: string) => {
  const checked = checkEndpoint(parsePushHosts(hosts), endpoint);
  return 'url' in checked ? true : checked.problem;
};

describe('PUSH_HOSTS', () => {
  it("should let pushes go to Apple's, Google's, Mozilla's and Microsoft's services by default", () => {
    for (const endpoint of [
      'https://web.push.apple.com/QGuQyavXutnMMVRHGNe3Zb1y6qkrgpFLZXHfq0nN-6U',
      'https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bHqjZxM0VImWWqDRN7U0a3AycjUf4O-byuxb_wJsKRaKvV_iKw56s16ekq6FUqoCF7k2nICUpd8fHPxVTgqLunFeVeB9lLCQZyohyAztTH8ZQL9WCxKpA6dvTG_TUIhQUFq_n',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABlBs9Y',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD',
    ])
      expect(allowed(DEFAULT_PUSH_HOSTS, endpoint), endpoint).toBe(true);
  });

  it('should refuse any other host, port, scheme, or a URL with a user in it', () => {
    expect(allowed(DEFAULT_PUSH_HOSTS, 'https://evil.example/fcm/send/x')).toBe('host_not_allowed');
    expect(allowed(DEFAULT_PUSH_HOSTS, 'https://fcm.googleapis.com.evil.example/x')).toBe('host_not_allowed');
    expect(allowed(DEFAULT_PUSH_HOSTS, 'https://fcm.googleapis.com:8443/x')).toBe('host_not_allowed');
    expect(allowed(DEFAULT_PUSH_HOSTS, 'http://fcm.googleapis.com/x')).toBe('not_https');
    expect(allowed(DEFAULT_PUSH_HOSTS, 'https://fcm.googleapis.com@169.254.169.254/x')).toBe('has_credentials');
    expect(allowed(DEFAULT_PUSH_HOSTS, 'https://user@fcm.googleapis.com/x')).toBe('has_credentials');
    expect(allowed(DEFAULT_PUSH_HOSTS, 'https://127.0.0.1/x')).toBe('host_not_allowed');
    expect(allowed(DEFAULT_PUSH_HOSTS, 'not a url')).toBe('not_a_url');
  });

  it('should read a leading *. as any host under the rest, never the rest itself nor an address', () => {
    expect(allowed('*.notify.windows.com', 'https://a.b.notify.windows.com/x')).toBe(true);
    expect(allowed('*.notify.windows.com', 'https://notify.windows.com/x')).toBe('host_not_allowed');
    expect(allowed('*.notify.windows.com', 'https://evilnotify.windows.com/x')).toBe('host_not_allowed');
    expect(() => parsePushHosts('*.com')).toThrow(/PUSH_HOSTS/);
    expect(() => parsePushHosts('fcm.*.com')).toThrow(/PUSH_HOSTS/);
    expect(() => parsePushHosts('*.1.2.3')).toThrow(/PUSH_HOSTS/);
  });

  it('should take host:port, an IPv4 address as written, and refuse what is not a host', () => {
    expect(parsePushHosts(' 127.0.0.1:8443 , Push.Example.com ')).toEqual([
      { name: '127.0.0.1', wildcard: false, port: 8443 },
      { name: 'push.example.com', wildcard: false, port: 443 },
    ]);
    expect(allowed('127.0.0.1:8443', 'https://127.0.0.1:8443/push/1')).toBe(true);
    expect(allowed('127.0.0.1:8443', 'https://127.0.0.1/push/1')).toBe('host_not_allowed');
    for (const bad of ['', ' , ', 'https://fcm.googleapis.com', 'fcm.googleapis.com:0', 'fcm.googleapis.com:70000', 'a_b.com', '300.1.1.1'])
      expect(() => parsePushHosts(bad), bad).toThrow(/PUSH_HOSTS/);
  });
});
