/**
 * Sends the notes still waiting on the phone from the home screen, as the recorder's page does: at
 * once when asked (the start, back online), then again when the earliest is due or, while one waits
 * on the network, to ask whether the way is back. One try is not enough: the first after the signal
 * returns often fails, and the worker's Background Sync tries again only minutes later (an iPhone's
 * home-screen app has none). No React: useRunners starts and stops it.
 */
import { allNotes, COMEBACK_PROBE_MS, nextProbeInterval, nextWake, replayOutbox, type Transport } from '../outbox/index.js';

/** Never sooner than this, so a note due now cannot spin the page. */
const MIN_WAIT_MS = 1_000;

export function sendWaitingNotes(transport: Transport, online: () => boolean) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let probeEvery = COMEBACK_PROBE_MS;

  /** One run; `force` skips backoff (the start, back online). Never rejects. */
  async function send(force: boolean): Promise<void> {
    clearTimeout(timer);
    if (stopped || !online()) return;
    try {
      const report = await replayOutbox(transport, { force });
      probeEvery = force ? COMEBACK_PROBE_MS : nextProbeInterval(probeEvery, report);
      const wake = nextWake(await allNotes(), Date.now(), probeEvery);
      clearTimeout(timer);
      if (!stopped && wake !== undefined) timer = setTimeout(() => void send(false), Math.max(MIN_WAIT_MS, wake - Date.now()));
    } catch {
      // Storage that cannot be read: nothing can be sent from here; the list says what it can.
    }
  }

  return {
    send,
    /** The home screen is gone: no more tries from it. */
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
