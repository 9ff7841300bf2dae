import { useEffect, useState } from 'react';
import type { LinkInfo } from '../shared/notes.js';
import { linkUrl, takePrefetchedLink } from '../linkPrefetch.js';
import { loadLink, saveLink } from '../shared/outbox/index.js';

export type LinkState =
  | { status: 'loading' }
  | { status: 'ready'; link: LinkInfo; fromCache: boolean }
  | { status: 'gone'; message: string }
  | { status: 'unreachable'; message: string };

const GONE = 'It may have been mistyped or turned off by the runner. Ask them to send it again.';
const UNREACHABLE = "We can't load this link right now. Check your connection and reload the page; it works offline once it has loaded.";

/** The runner's link from the server, kept on the device so a link opened once works offline. */
export function useLink(token: string): LinkState {
  const [state, setState] = useState<LinkState>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    const set = (next: LinkState) => live && setState(next);
    let fresh = false;
    void loadLink(token)
      .then((cached) => {
        if (cached && !fresh) set({ status: 'ready', link: cached.link, fromCache: true });
      })
      .catch(() => undefined);
    void (async () => {
      let cachedOnFailure: LinkInfo | undefined;
      try {
        // The shell started this request beside the recorder's JavaScript (src/linkPrefetch.ts).
        const response = await (takePrefetchedLink(token) ?? fetch(linkUrl(token), { headers: { Accept: 'application/json' } }));
        if (response.ok) {
          const link = (await response.json()) as LinkInfo;
          fresh = true;
          set({ status: 'ready', link, fromCache: false });
          await saveLink(token, link).catch(() => undefined);
          return;
        }
        if (response.status === 404) {
          fresh = true;
          set({ status: 'gone', message: GONE });
          return;
        }
      } catch {
        // Offline or the server is down: the copy kept on the device will do.
      }
      cachedOnFailure = (await loadLink(token).catch(() => undefined))?.link;
      set(cachedOnFailure ? { status: 'ready', link: cachedOnFailure, fromCache: true } : { status: 'unreachable', message: UNREACHABLE });
    })();
    return () => {
      live = false;
    };
  }, [token]);
  return state;
}
