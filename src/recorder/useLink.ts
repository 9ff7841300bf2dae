import { startTransition, useCallback, useEffect, useState } from 'react';
import { getLink } from '../apiClient.js';
import type { LinkInfo } from '../shared/notes.js';
import { loadLink, saveLink } from '../shared/outbox/index.js';

export type LinkState =
  | { status: 'loading' }
  | { status: 'ready'; link: LinkInfo; fromCache: boolean }
  /** The server does not know the link (or no longer). */
  | { status: 'gone' }
  /** No answer and no copy on the device. */
  | { status: 'unreachable' };

/**
 * The runner's link from the server, kept on the device so a link opened once works offline; and
 * how to show a fresher answer the page read since (the race as the operator left it: issue 37).
 */
export function useLink(token: string): [LinkState, (fresh: LinkInfo) => void] {
  const [state, setState] = useState<LinkState>({ status: 'loading' });
  const heard = useCallback((fresh: LinkInfo) => startTransition(() => setState({ status: 'ready', link: fresh, fromCache: false })), []);
  useEffect(() => {
    let live = true;
    // The screen's first full render is a transition: React renders it in slices of a few
    // milliseconds, so a slow phone can still answer a tap while it is built.
    const set = (next: LinkState) => live && startTransition(() => setState(next));
    let fresh = false;
    void loadLink(token)
      .then((cached) => {
        if (cached && !fresh) set({ status: 'ready', link: cached.link, fromCache: true });
      })
      .catch(() => undefined);
    void (async () => {
      const answer = await getLink(token);
      if (answer.ok) {
        fresh = true;
        set({ status: 'ready', link: answer.value, fromCache: false });
        // Not keeping a copy only costs offline use later; the link works now.
        await saveLink(token, answer.value).catch(() => undefined);
        return;
      }
      if (answer.reason === 'not-found') {
        fresh = true;
        return set({ status: 'gone' });
      }
      // Offline or the server is down: the copy kept on the device will do.
      const cached = (await loadLink(token).catch(() => undefined))?.link;
      set(cached ? { status: 'ready', link: cached, fromCache: true } : { status: 'unreachable' });
    })();
    return () => {
      live = false;
    };
  }, [token]);
  return [state, heard];
}
