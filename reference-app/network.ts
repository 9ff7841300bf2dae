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

/** A call through the generated client: its data, its error body, and the response. */
export type ClientCall<T> = () => Promise<{ data?: T; error?: unknown; response: Response }>;

export interface RetryRule {
  /** True once the app is stopping: no more tries. */
  stopped(): boolean;
  /** Asked on a 401 when the app holds a refresh token; false when it holds none. */
  refresh(): Promise<boolean>;
}

/**
 * Tries a call until it gets an answer that is not a network failure or a 5xx/429, honouring
 * Retry-After. A request that got no answer is tried again within a second (the rule above: a cell
 * link comes back without notice, the venue's lesson). The server's own "not now" (5xx,
 * 429) backs off to 8 s, or as it says. Any other refusal is thrown at once, named by `what`.
 */
export async function retrying<T>(what: string, call: ClientCall<T>, rule: RetryRule, deadline = Date.now() + 120_000): Promise<T> {
  let serverWait = 500;
  let networkFailures = 0;
  for (;;) {
    let wait: number;
    try {
      const { data, error, response } = await call();
      networkFailures = 0;
      if (response.status === 401 && (await rule.refresh())) continue;
      if (data !== undefined && response.ok) return data;
      if (response.status < 500 && response.status !== 429 && response.status !== 408) throw new Error(`${what}: ${response.status} ${JSON.stringify(error)}`);
      wait = Math.max(serverWait, Number(response.headers.get('retry-after') ?? 0) * 1000);
      serverWait = Math.min(serverWait * 2, 8_000);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith(`${what}:`)) throw err;
      wait = networkRetryWait(++networkFailures);
    }
    if (rule.stopped() || Date.now() > deadline) throw new Error(`${what}: gave up`);
    await new Promise((r) => setTimeout(r, wait));
  }
}
