import { startTransition, useCallback, useEffect, useState } from 'react';
import { getLink } from '../apiClient.js';
import type { LinkInfo } from '../outbox/notes.js';
import { loadLink, markLinkGone, saveLink } from '../outbox/index.js';

export type LinkState =
  | { status: 'loading' }
  /** `heardAt`: the phone's clock when the answer came, which the server's clock in it is kept from (./serverClock.ts). */
  | { status: 'ready'; link: LinkInfo; fromCache: boolean; heardAt: number }
  /** The server does not know the link (or no longer). */
  | { status: 'gone' }
  /** No answer and no copy on the device. */
  | { status: 'unreachable' };

/** The link as the page's HTML carried it, and the phone's clock when that page came. */
export interface CarriedLink {
  link: LinkInfo;
  heardAt: number;
}

/**
 * The runner's link from the server, kept on the device so a link opened once works offline; and
 * how to show a fresher answer the page read since (the race as the operator left it).
 * `carried`: the link the server drew the page with, ready from the first render (it is the answer).
 */
export function useLink(token: string, carried?: CarriedLink): [LinkState, (fresh: LinkInfo, heardAt: number) => void] {
  const [state, setState] = useState<LinkState>(() =>
    carried ? { status: 'ready', link: carried.link, fromCache: false, heardAt: carried.heardAt } : { status: 'loading' },
  );
  const [drawnWith] = useState(carried);
  const heard = useCallback(
    (fresh: LinkInfo, heardAt: number) => startTransition(() => setState({ status: 'ready', link: fresh, fromCache: false, heardAt })),
    [],
  );
  useEffect(() => {
    // Not keeping a copy only costs offline use later; the link works now.
    if (drawnWith) return void saveLink(token, drawnWith.link, drawnWith.heardAt).catch(() => undefined);
    let live = true;
    // The screen's first full render is a transition: React renders it in slices of a few
    // milliseconds, so a slow phone can still answer a tap while it is built.
    const set = (next: LinkState) => live && startTransition(() => setState(next));
    let fresh = false;
    void loadLink(token)
      .then((cached) => {
        if (cached && !fresh) set({ status: 'ready', link: cached.link, fromCache: true, heardAt: cached.savedAt });
      })
      .catch(() => undefined);
    void (async () => {
      const answer = await getLink(token);
      if (answer.ok) {
        fresh = true;
        const heardAt = Date.now();
        set({ status: 'ready', link: answer.value, fromCache: false, heardAt });
        // Not keeping a copy only costs offline use later; the link works now.
        await saveLink(token, answer.value, heardAt).catch(() => undefined);
        return;
      }
      if (answer.reason === 'not-found') {
        fresh = true;
        // The home screen's list then says so, offline too.
        await markLinkGone(token).catch(() => undefined);
        return set({ status: 'gone' });
      }
      // Offline or the server is down: the copy kept on the device will do.
      const cached = await loadLink(token).catch(() => undefined);
      set(cached ? { status: 'ready', link: cached.link, fromCache: true, heardAt: cached.savedAt } : { status: 'unreachable' });
    })();
    return () => {
      live = false;
    };
  }, [token, drawnWith]);
  return [state, heard];
}
