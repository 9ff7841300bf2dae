import { describe, expect, it } from 'vitest';
import { APP_BADGE_END, APP_BADGE_START, appBadgeHtml } from '../../contract/appBadge.js';

describe('the App Store badge', () => {
  it('should say the app is coming, and lead nowhere, with no App Store address', () => {
    const html = appBadgeHtml(undefined);
    expect(html.startsWith(APP_BADGE_START) && html.endsWith(APP_BADGE_END)).toBe(true);
    expect(html).not.toMatch(/<a\b|href=/);
    expect(html).not.toContain('Download');
    // What a screen reader and a search engine read: the words, the phone drawn hidden from them.
    expect(html.replace(/<svg[\s\S]*?<\/svg>/, '').replace(/<[^>]+>/g, '')).toBe('Coming soon to the App Store');
    expect(html).toContain('aria-hidden="true"');
  });

  it('should link to the App Store address given, escaped, as the store badge', () => {
    const html = appBadgeHtml('https://apps.apple.com/app/id1234567890?a="b"&c=<d>');
    expect(html).toContain('<a class="app-badge" id="app" href="https://apps.apple.com/app/id1234567890?a=&quot;b&quot;&amp;c=&lt;d&gt;">');
    expect(html).toContain('alt="Download on the App Store"');
    expect(html).not.toContain('Coming soon');
  });
});
