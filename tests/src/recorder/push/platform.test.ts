/** Which phones the push controls ask, and which they tell to add MileNotes to the Home Screen first. */
import { describe, expect, it } from 'vitest';
import { pushSupport } from '../../../../src/recorder/push/platform.js';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const IPAD_AS_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36';
const phone = (userAgent: string, more: Partial<Parameters<typeof pushSupport>[0]> = {}) =>
  pushSupport({ userAgent, platform: 'Linux armv8l', maxTouchPoints: 5, standalone: false, hasPush: true, ...more });

describe('push on this phone', () => {
  it('should send iPhone and iPad Safari tabs to the Home Screen first, and ask inside the Home Screen app', () => {
    expect(phone(IPHONE, { hasPush: false })).toBe('install-first');
    expect(phone(IPAD_AS_MAC, { platform: 'MacIntel', hasPush: false })).toBe('install-first');
    expect(phone(IPHONE, { standalone: true })).toBe('ready');
  });

  it('should ask on Android and desktop browsers with push, and show nothing without it', () => {
    expect(phone(ANDROID)).toBe('ready');
    expect(phone(IPAD_AS_MAC, { platform: 'MacIntel', maxTouchPoints: 0 })).toBe('ready');
    expect(phone(ANDROID, { hasPush: false })).toBe('unsupported');
  });
});
