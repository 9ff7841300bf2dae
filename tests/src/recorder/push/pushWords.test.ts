/** Every refusal a push route can give a friend is said in the page's own words, not the generic failure. */
import { describe, expect, it } from 'vitest';
import { pushRefusalWords } from '../../../../src/recorder/push/pushWords.js';
import { t } from '../../../../src/i18n/index.js';
import { PUSH_REFUSALS } from '../../../../contract/refusals.js';

// The codes a friend can meet on a phone that has push (push_off hides the controls; invalid_subscription and
// push_not_subscribed are the browser's or the page's own trouble: "try again" fits).
const SAID_BY_CODE = PUSH_REFUSALS.filter((code) => !['push_off', 'invalid_subscription', 'push_not_subscribed'].includes(code));

describe('the push refusals in words', () => {
  it.each(SAID_BY_CODE)('should say %s in its own sentence', (code) => {
    const words = pushRefusalWords(code, 'Ana', '5');
    expect(words).not.toBe(t('push.failed'));
    expect(words).not.toMatch(/push\.refusal\./);
  });

  it('should tell a phone the link does not know yet to reload the page', () => {
    expect(pushRefusalWords('device_unknown', 'Ana')).toMatch(/Reload the page/);
  });

  it('should tell a phone the link cannot take now when to try again, from the Retry-After, and that its notes still go', () => {
    expect(pushRefusalWords('link_phones_busy', 'Ana', '', 1_790)).toBe(
      'Many new phones opened this link in the last hour. Try again in about 30 minutes. Your notes still reach Ana.',
    );
    expect(pushRefusalWords('link_phones_busy', 'Ana', '', 20)).toMatch(/in about 1 minute\./);
    expect(pushRefusalWords('link_phones_busy', 'Ana')).toMatch(/in about 60 minutes\./);
    expect(pushRefusalWords('link_phones_full', 'Ana')).toMatch(/Ask Ana for a new link\./);
  });
});
