/**
 * Refusals of the recorder's push routes (issue 36): status, code and English sentence, written once
 * here. Not in the note refusals (src/shared/refusals.ts): they are never a note's reason, and the
 * recorder words them itself by code in its push block (src/i18n, push.refusal.*).
 */
import { ALERT_LEAD_MINUTES } from '../../src/shared/push.js';
import { ApiProblem } from '../http/problem.js';

// Defaults for the contract (server/http/contract.ts), which calls each with no values.
export const pushRefusal = {
  push_off: () => new ApiProblem(404, 'push_off', 'This server does not send notifications.'),
  /** The request carried no device cookie: GET /api/r/:token gives it. */
  device_unknown: () => new ApiProblem(400, 'device_unknown', 'This phone was not recognised (cookies may be off). Reload the page and try again.'),
  /** The phone's cookie is ours, but this phone never opened this link (GET /api/r/:token remembers it). */
  device_not_linked: () => new ApiProblem(403, 'device_not_linked', 'This phone has not opened this link. Reload the page and try again.'),
  push_endpoint_refused: () => new ApiProblem(400, 'push_endpoint_refused', "This browser's push service is not one this server sends notifications to."),
  invalid_subscription: () => new ApiProblem(400, 'invalid_subscription', "The browser's push subscription could not be read. Please try again."),
  push_link_full: () => new ApiProblem(429, 'push_link_full', 'Too many phones asked for notifications on this link.'),
  push_phone_full: () => new ApiProblem(429, 'push_phone_full', 'This phone asked for notifications on too many links. Turn some off first.'),
  push_not_subscribed: () => new ApiProblem(409, 'push_not_subscribed', 'Turn notifications on for this link first.'),
  progress_not_shared: (runner = 'The runner') =>
    new ApiProblem(409, 'progress_not_shared', `${runner} is not sharing progress right now, so there is no estimate to tell you by.`),
  marker_passed: (runner = 'The runner', marker = 'this marker') => new ApiProblem(409, 'marker_passed', `${runner} has already passed ${marker}.`),
  marker_too_near: (runner = 'The runner', marker = 'this marker') =>
    new ApiProblem(409, 'marker_too_near', `${runner} is expected at ${marker} in less than ${ALERT_LEAD_MINUTES} minutes already.`),
} satisfies Record<string, (...args: never[]) => ApiProblem>;
