/**
 * The timings of the server's background work (server/background), each set here once: how long a
 * lease lasts and how often its holder renews it, and how often each loop looks for work.
 */

/**
 * A conversion's claim lasts 20 s unless renewed (every quarter of that while the job runs): a
 * server that dies mid-conversion has its job taken by another within 20 s plus one poll (2 s),
 * well inside the 30 s a race-day note can spare, whatever FFMPEG_TIMEOUT_MS is.
 */
export const CONVERSION_LEASE_MS = 20_000;
/** How often an idle conversion slot looks for a job (each new note nudges it at once). */
export const CONVERSION_POLL_MS = 2_000;

/** How often a lease is renewed by default: three beats may be lost before the lease is. */
export const heartbeatFor = (leaseMs: number): number => Math.max(1, Math.floor(leaseMs / 4));

/**
 * How long /readyz lets the conversion loop go without a beat while idle: three polls and a margin
 * (while converting, the lease's own length: the lease's heartbeat beats it).
 */
export const conversionIdleBeatMs = (pollMs: number): number => pollMs * 3 + 5_000;

/** A push's claim: longer than a send's time limit, so a live send keeps it. */
export const PUSH_LEASE_MS = 60_000;
/** How often the push loop looks for due alerts and pushes another server queued (this server's nudge it). */
export const PUSH_POLL_MS = 5_000;
/** How often alerts of races over and idle subscriptions are swept. */
export const PUSH_SWEEP_MS = 3_600_000;

/** An upload's append lease: its holder renews it every UPLOAD_HEARTBEAT_MS; a crashed holder frees the upload after it. */
export const UPLOAD_LEASE_MS = 15_000;
export const UPLOAD_HEARTBEAT_MS = 5_000;
/** How often expired unfinished uploads are swept: a quarter of their life, at most every ten minutes. */
export const uploadExpirySweepMs = (expiryMs: number): number => Math.min(expiryMs / 4, 10 * 60_000);
