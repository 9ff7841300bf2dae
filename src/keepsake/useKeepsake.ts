import { useEffect, useState } from 'react';
import type { Keepsake } from '../shared/runnerApi.js';

export type KeepsakeState =
  | { status: 'loading' }
  | { status: 'ready'; keepsake: Keepsake }
  | { status: 'gone'; message: string }
  | { status: 'unreachable'; message: string };

const GONE = "These notes aren't shared any more, or the link is incomplete. Ask the runner to share them again.";
const UNREACHABLE = "We can't load these notes right now. Check your connection and reload the page.";

/** The shared notes for a keepsake token, from GET /api/s/:token. */
export function useKeepsake(token: string): KeepsakeState {
  const [state, setState] = useState<KeepsakeState>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    const set = (next: KeepsakeState) => live && setState(next);
    void (async () => {
      try {
        const response = await fetch(`/api/s/${encodeURIComponent(token)}`, { headers: { Accept: 'application/json' } });
        if (response.ok) return set({ status: 'ready', keepsake: (await response.json()) as Keepsake });
        if (response.status === 404) return set({ status: 'gone', message: GONE });
      } catch {
        // offline or the server is down: said below
      }
      set({ status: 'unreachable', message: UNREACHABLE });
    })();
    return () => {
      live = false;
    };
  }, [token]);
  return state;
}
