/**
 * How long a note needs on its way, for the server's conversion deadlines and the recorder's advice.
 * One place, so the queue and the friend's screen never disagree about "in time".
 *
 * Both are spans of the server's clock (server/clock.ts), as the race times they are taken from. On
 * race day that clock is the real one. The demo's runs a race in minutes, and these shrink with it
 * (5 minutes are 19 seconds at its usual 16x, 6 at 49x), as the way itself does on one computer,
 * where a note is on the phone a second or two after it is sent: its advice holds there too.
 */

/**
 * From converted to on the runner's phone: the app hears of it through its held sync within
 * seconds, then downloads about 100-300 KB over a congested cell (tens of kbit/s at a big race).
 * A conversion's deadline is the runner's expected time at the marker less this.
 */
export const PHONE_LEAD_MS = 2 * 60_000;

/**
 * From "Send" on a friend's phone to on the runner's phone: an upload on one bar (up to a minute
 * or two with retries), conversion in a busy queue, then PHONE_LEAD_MS. The recorder suggests the
 * first marker the runner is expected at no sooner than this from now, and warns below it.
 */
export const SEND_LEAD_MS = 5 * 60_000;
