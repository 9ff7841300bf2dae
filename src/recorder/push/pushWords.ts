/** What a push route's refusal says to the person (issue 36), by its code: the page's own words, in the language in use. */
import '../laterWords.js';
import { ALERT_LEAD_MINUTES } from '../../shared/push.js';
import { markerName, t } from '../../i18n/index.js';

/** `marker`: the marker asked about, for the alerts' refusals. */
export function pushRefusalWords(code: string | undefined, runner: string, marker = ''): string {
  const name = markerName(marker);
  switch (code) {
    case 'push_endpoint_refused':
      return t('push.refusal.push_endpoint_refused');
    case 'push_link_full':
      return t('push.refusal.push_link_full');
    case 'push_phone_full':
      return t('push.refusal.push_phone_full');
    case 'device_unknown':
    case 'device_not_linked':
      return t('push.refusal.device_not_linked');
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
