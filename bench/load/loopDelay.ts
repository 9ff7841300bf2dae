import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** This thread's event-loop delay from now to stop(), in ms: how late its timers and answers run behind its own work. */
export function watchLoop(): { stop(): LoopDelay } {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  return {
    stop() {
      h.disable();
      return { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
    },
  };
}
