/**
 * Migration 17 (issue 40): when a subscription last took a push (`last_pushed_at`, epoch ms; null
 * until its first). Push services tell us a subscription died only by a 404 or 410 to a push we
 * send, and a phone that removed the app or cleared its data never tells anyone: the push sweep
 * (server/push/sweep.ts) removes a subscription that has taken no push, nor been saved again by
 * its phone, for a long time after its race.
 */
export const PUSH_LAST_PUSHED_COLUMN = `
  ALTER TABLE push_subscriptions ADD COLUMN last_pushed_at BIGINT
`;
