/**
 * Refusals of the recorder's push routes: status, code and English sentence, written once
 * here for each code contract/refusals.ts lists in PUSH_REFUSALS (the `satisfies` below holds the
 * two to each other). Not note refusals: they are never a note's reason, and the recorder words
 * them itself by code in its push block (src/i18n, push.refusal.*).
 */
import { ALERT_LEAD_MINUTES } from '../../contract/push.js';
import type { PushRefusal } from '../../contract/refusals.js';
import { NEW_PHONES_WINDOW_MS } from '../db/device-store.js';
import { ApiProblem } from '../http/problem.js';

const minutes = (seconds: number) => {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return m === 1 ? '1 minute' : `${m} minutes`;
};

// Defaults for the contract (server/http/contract.ts), which calls each with no values.
export const pushRefusal = {
  push_off: () => new ApiProblem(404, 'push_off', 'This server does not send notifications.'),
  /** The request carried no device cookie: GET /api/r/:token gives it. */
  device_unknown: () => new ApiProblem(400, 'device_unknown', 'This phone was not recognised (cookies may be off). Reload the page and try again.'),
  /**
   * The phone is not on the link, and the link took its hour's new phones (server/db/device-store.ts):
   * it may come on once the oldest of them is an hour old. Notes go all the same.
   */
  link_phones_busy: (retryAfterSeconds = NEW_PHONES_WINDOW_MS / 1000, runner = 'the runner') =>
    new ApiProblem(
      429,
      'link_phones_busy',
      `Many new phones opened this link in the last hour. Try again in about ${minutes(retryAfterSeconds)}. Your notes still reach ${runner}.`,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  /** The phone is not on the link, and every phone on it took part there (a note, notifications, an alert): waiting does not help. */
  link_phones_full: (runner = 'the runner') =>
    new ApiProblem(
      429,
      'link_phones_full',
      `This link is full: every phone on it has sent a note or asked to be told. Ask ${runner} for a new link. Your notes still reach ${runner}.`,
    ),
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
} satisfies { [Code in PushRefusal]: (...args: never[]) => ApiProblem<Code> };
