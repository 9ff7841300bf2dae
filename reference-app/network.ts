/**
 * The contract's rule for a request that got no answer at all (no connection, a cut, a timeout;
 * docs/app-contract.md, "Errors and limits"): try again soon, and keep trying every second. A cell
 * link comes back without notice, and a connection that never reached the server costs it nothing;
 * the raceday bench measures the rule as how soon after an offline window the phone is back.
 */
export const NETWORK_RETRY_FIRST_MS = 250;
export const NETWORK_RETRY_MAX_MS = 1_000;

/** The wait before the next try after this many failures in a row (1 or more). */
export const networkRetryWait = (failuresInARow: number): number =>
  Math.min(NETWORK_RETRY_FIRST_MS * 2 ** Math.max(0, failuresInARow - 1), NETWORK_RETRY_MAX_MS);
