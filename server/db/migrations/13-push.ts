/**
 * Migration 13: Web Push. `push_keys` holds the one VAPID key pair every server signs
 * with when the environment gives none (its private key sealed under the session secret, as device
 * links seal tokens). `push_subscriptions` is a phone's (device_id, the device cookie's hash) push
 * endpoint for one link, with the browser's keys, the language its notices speak, whether it asked
 * to hear of its notes being played, and the link's token sealed so a notice can open that recorder.
 * `push_alerts` are a spectator's asks: "about 10 minutes from this marker", due at `due_at` (epoch
 * ms, from the same estimate the conversion deadlines use), fired once (`fired_at`). `push_deliveries`
 * is the queue of pushes to send: one per (subscription, kind, ref: the note's id or the marker's),
 * its id made of the three so a push is queued once, leased like conversion jobs so one server sends each. Everything goes with its link (revoked links
 * are removed explicitly, deleted ones cascade) and a delivery with its note.
 */
export const PUSH_TABLES = `
  CREATE TABLE push_keys (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    public_key TEXT NOT NULL,
    sealed_private_key TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE push_subscriptions (
    id TEXT PRIMARY KEY,
    device_id TEXT NOT NULL,
    link_id TEXT NOT NULL REFERENCES links(id) ON DELETE CASCADE,
    endpoint TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    lang TEXT NOT NULL,
    heard INTEGER NOT NULL,
    sealed_token TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (device_id, link_id)
  );
  CREATE INDEX push_subscriptions_by_link ON push_subscriptions (link_id);
  CREATE INDEX push_subscriptions_by_endpoint ON push_subscriptions (endpoint);
  CREATE TABLE push_alerts (
    subscription_id TEXT NOT NULL REFERENCES push_subscriptions(id) ON DELETE CASCADE,
    marker TEXT NOT NULL,
    due_at BIGINT NOT NULL,
    fired_at BIGINT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (subscription_id, marker)
  );
  CREATE INDEX push_alerts_by_due ON push_alerts (due_at);
  CREATE TABLE push_deliveries (
    id TEXT PRIMARY KEY,
    subscription_id TEXT NOT NULL REFERENCES push_subscriptions(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    ref TEXT NOT NULL,
    note_id TEXT REFERENCES notes(id) ON DELETE CASCADE,
    marker TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    due_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    locked_until BIGINT NOT NULL,
    lease_owner TEXT,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX push_deliveries_by_subscription ON push_deliveries (subscription_id);
  CREATE INDEX push_deliveries_by_due ON push_deliveries (due_at, locked_until);
  CREATE INDEX push_deliveries_by_note ON push_deliveries (note_id)
`;
