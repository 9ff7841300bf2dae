/**
 * "The runner moved": the one event a position batch that placed fixes raises (./tracking.ts), in
 * this process, after the batch is stored. What follows a runner's progress listens here, each
 * registered once when the app is built (server/app.ts): the waiting notes' deadlines
 * (./note-deadlines.ts) and the spectators' marker alerts (server/push).
 */

export interface RunnerMoved {
  entryId: string;
  /** The race's clock when the batch was taken. */
  at: number;
  /**
   * The batch passed a marker or placed the runner for the first time: what moves the estimate of
   * the markers ahead. A batch between markers only moves it by the seconds the pace drifts.
   */
  passedMarker: boolean;
}

/**
 * A listener runs before the batch is answered when it returns a promise (it is awaited, and its
 * failure fails the batch); one that must not hold the batch up starts its work and returns.
 */
export type RunnerMovedListener = (moved: RunnerMoved) => Promise<void> | void;

export interface RunnerMovedEvent {
  /** Adds a listener; they run in the order added. */
  listen(listener: RunnerMovedListener): void;
  /** Tells every listener, one after the other. */
  emit(moved: RunnerMoved): Promise<void>;
}

export function createRunnerMoved(): RunnerMovedEvent {
  const listeners: RunnerMovedListener[] = [];
  return {
    listen: (listener) => void listeners.push(listener),
    async emit(moved) {
      for (const listener of listeners) await listener(moved);
    },
  };
}
