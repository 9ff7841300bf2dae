import { describe, expect, it } from 'vitest';
import { installOfferFor, isMobile, type InstallFacts } from '../../../src/recorder/installOffer.js';

const UA = {
  android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
  androidTablet: 'Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  iphoneSafari: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  iphoneChrome:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/130.0.6723.90 Mobile/15E148 Safari/604.1',
  iphoneInstagram: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 340.0.0.22.109',
  ipadSafari: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  desktopChrome: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  macSafari: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
};

const facts = (over: Partial<InstallFacts> = {}): InstallFacts => ({
  userAgent: UA.android,
  maxTouchPoints: 5,
  installed: false,
  canPrompt: true,
  dismissed: false,
  delivered: true,
  waiting: 0,
  ...over,
});

describe('the offer to install', () => {
  it("should offer Chromium's kept prompt on a phone once a note is delivered", () => {
    expect(installOfferFor(facts())).toEqual({ kind: 'prompt' });
    expect(installOfferFor(facts({ userAgent: UA.androidTablet }))).toEqual({ kind: 'prompt' });
  });

  it('should offer nothing before the first note is delivered, in the installed app, after "Not now", or on a desktop', () => {
    expect(installOfferFor(facts({ delivered: false }))).toEqual({ kind: 'none' });
    expect(installOfferFor(facts({ installed: true }))).toEqual({ kind: 'none' });
    expect(installOfferFor(facts({ dismissed: true }))).toEqual({ kind: 'none' });
    expect(installOfferFor(facts({ userAgent: UA.desktopChrome, maxTouchPoints: 0 }))).toEqual({ kind: 'none' });
    expect(installOfferFor(facts({ userAgent: UA.macSafari, maxTouchPoints: 0, canPrompt: false }))).toEqual({ kind: 'none' });
  });

  it('should give iPhone and iPad Safari the hint, with the notes still waiting in Safari', () => {
    expect(installOfferFor(facts({ userAgent: UA.iphoneSafari, canPrompt: false, waiting: 2 }))).toEqual({ kind: 'ios', waiting: 2 });
    expect(installOfferFor(facts({ userAgent: UA.ipadSafari, maxTouchPoints: 5, canPrompt: false }))).toEqual({ kind: 'ios', waiting: 0 });
  });

  it("should give no hint in another iOS browser or an app's web view, nor in Android's browsers that keep no prompt", () => {
    expect(installOfferFor(facts({ userAgent: UA.iphoneChrome, canPrompt: false }))).toEqual({ kind: 'none' });
    expect(installOfferFor(facts({ userAgent: UA.iphoneInstagram, canPrompt: false }))).toEqual({ kind: 'none' });
    expect(installOfferFor(facts({ canPrompt: false }))).toEqual({ kind: 'none' });
  });

  it('should tell a phone or tablet from a desktop by the user agent and the touch screen', () => {
    expect(isMobile(UA.android, 5)).toBe(true);
    expect(isMobile(UA.iphoneSafari, 5)).toBe(true);
    expect(isMobile(UA.ipadSafari, 5)).toBe(true);
    expect(isMobile(UA.macSafari, 0)).toBe(false);
    expect(isMobile(UA.desktopChrome, 10)).toBe(false);
  });
});
