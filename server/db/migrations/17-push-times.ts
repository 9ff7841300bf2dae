/**
 * Migration 17: push rows that end, and alerts that cost one runner.
 * - `push_subscriptions.last_pushed_at` (epoch ms; null until the first): when a push service last
 *   took a push for it. Push services tell us a subscription died only by a 404 or 410 to a push we
 *   send, and a phone that removed the app or cleared its data tells nobody: the push sweep
 *   (server/push/sweep.ts) removes a subscription idle for long after its race.
 * - `push_alert_times`: when the marker alerts of one link on one marker are due (the estimate less
 *   the alert's lead), one row however many phones asked: every alert on a link follows the same
 *   runner's estimate, so a position batch writes one row per marker, not one per phone's alert.
 *   Made from the waiting alerts' times; `push_alerts.due_at` then keeps the time it was asked with,
 *   and its index goes (nothing looks alerts up by it any more).
 */
export const PUSH_TIMES_TABLES = `
  ALTER TABLE push_subscriptions ADD COLUMN last_pushed_at BIGINT;
  CREATE TABLE push_alert_times (
    link_id TEXT NOT NULL REFERENCES links(id) ON DELETE CASCADE,
    marker TEXT NOT NULL,
    due_at BIGINT NOT NULL,
    PRIMARY KEY (link_id, marker)
  );
  CREATE INDEX push_alert_times_by_due ON push_alert_times (due_at);
  INSERT INTO push_alert_times (link_id, marker, due_at)
    SELECT s.link_id, a.marker, MIN(a.due_at) FROM push_alerts a JOIN push_subscriptions s ON s.id = a.subscription_id
    WHERE a.fired_at IS NULL GROUP BY s.link_id, a.marker;
  DROP INDEX push_alerts_by_due
`;
