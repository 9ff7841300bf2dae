import { useEffect, useState } from 'react';
import { getKeepsake } from '../apiClient.js';
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
    void getKeepsake(token).then((answer) => {
      if (answer.ok) set({ status: 'ready', keepsake: answer.value });
      else set(answer.reason === 'not-found' ? { status: 'gone', message: GONE } : { status: 'unreachable', message: UNREACHABLE });
    });
    return () => {
      live = false;
    };
  }, [token]);
  return state;
}
