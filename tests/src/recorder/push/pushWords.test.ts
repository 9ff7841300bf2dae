/** Every refusal a push route can give a friend is said in the page's own words, not the generic failure. */
import { describe, expect, it } from 'vitest';
import { pushRefusalWords } from '../../../../src/recorder/push/pushWords.js';
import { t } from '../../../../src/i18n/index.js';

// The codes of server/push/refusals.ts a friend can meet on a phone that has push (push_off hides the controls;
// invalid_subscription and push_not_subscribed are the browser's or the page's own trouble: "try again" fits).
const SAID_BY_CODE = [
  'device_unknown',
  'device_not_linked',
  'push_endpoint_refused',
  'push_link_full',
  'push_phone_full',
  'progress_not_shared',
  'marker_passed',
  'marker_too_near',
];

describe('the push refusals in words', () => {
  it.each(SAID_BY_CODE)('should say %s in its own sentence', (code) => {
    const words = pushRefusalWords(code, 'Ana', '5');
    expect(words).not.toBe(t('push.failed'));
    expect(words).not.toMatch(/push\.refusal\./);
  });

  it('should tell a phone the link does not know yet to reload the page', () => {
    expect(pushRefusalWords('device_not_linked', 'Ana')).toMatch(/Reload the page/);
    expect(pushRefusalWords('device_unknown', 'Ana')).toBe(pushRefusalWords('device_not_linked', 'Ana'));
  });
});
