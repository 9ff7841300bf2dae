/** What a push route's refusal says to the person, by its code: the page's own words, in the language in use. */
import '../laterWords.js';
import { ALERT_LEAD_MINUTES } from '../../../contract/push.js';
import { markerName, t, tn } from '../../i18n/index.js';

/** What the link's new phones of the hour are counted over: a refusal without its Retry-After waits that long at most. */
const NEW_PHONES_WINDOW_SECONDS = 3600;

/** `marker`: the marker asked about, for the alerts' refusals; `retryAfter`: the refusal's Retry-After, in seconds. */
export function pushRefusalWords(code: string | undefined, runner: string, marker = '', retryAfter?: number): string {
  const name = markerName(marker);
  switch (code) {
    case 'link_phones_busy':
      return tn('push.refusal.link_phones_busy', Math.max(1, Math.ceil((retryAfter ?? NEW_PHONES_WINDOW_SECONDS) / 60)), { runner });
    case 'link_phones_full':
      return t('push.refusal.link_phones_full', { runner });
    case 'push_endpoint_refused':
      return t('push.refusal.push_endpoint_refused');
    case 'push_link_full':
      return t('push.refusal.push_link_full');
    case 'push_phone_full':
      return t('push.refusal.push_phone_full');
    case 'device_unknown':
      return t('push.refusal.device_unknown');
    case 'progress_not_shared':
      return t('push.refusal.progress_not_shared', { runner });
    case 'marker_passed':
      return t('push.refusal.marker_passed', { runner, marker: name });
    case 'marker_too_near':
      return t('push.refusal.marker_too_near', { runner, marker: name, minutes: ALERT_LEAD_MINUTES });
    default:
      return t('push.failed');
  }
}
