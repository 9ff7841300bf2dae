/** A load generator's pacing timer: calls `tick` every `everyMs` from now until stop(), which waits for the calls in flight. */
export function paced(everyMs: number, tick: () => Promise<unknown>): { stop(): Promise<void> } {
  const inFlight = new Set<Promise<unknown>>();
  const timer = setInterval(() => {
    const p = tick().catch(() => undefined);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}
