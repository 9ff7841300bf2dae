import { useEffect, useState } from 'react';
import { getKeepsake } from '../apiClient.js';
import type { Keepsake } from '../../contract/runnerApi.js';

export type KeepsakeState =
  | { status: 'loading' }
  | { status: 'ready'; keepsake: Keepsake }
  /** Not shared (any more), or the link is incomplete. */
  | { status: 'gone' }
  /** No answer, or one we cannot use. */
  | { status: 'unreachable' };

/** The shared notes for a keepsake token, from GET /api/s/:token. */
export function useKeepsake(token: string): KeepsakeState {
  const [state, setState] = useState<KeepsakeState>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    const set = (next: KeepsakeState) => live && setState(next);
    void getKeepsake(token).then((answer) => {
      if (answer.ok) set({ status: 'ready', keepsake: answer.value });
      else set({ status: answer.reason === 'not-found' ? 'gone' : 'unreachable' });
    });
    return () => {
      live = false;
    };
  }, [token]);
  return state;
}
