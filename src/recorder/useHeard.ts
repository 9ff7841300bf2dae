import { useEffect, useState } from 'react';
import type { OutboxNote } from '../shared/notes.js';
import type { NoteHeard } from '../shared/runnerApi.js';

/** Race day is long; asking every two minutes is plenty and costs a few hundred bytes. */
const POLL_MS = 2 * 60_000;

/**
 * Where the runner heard each delivered note ('Mile 13'), asked of the server, which tells only
 * the holder of the note's id. null: the server no longer knows the note; stop asking.
 */
export function useHeard(token: string, notes: OutboxNote[]): Record<string, string | null> {
  const [heard, setHeard] = useState<Record<string, string | null>>({});
  const unknown = notes
    .filter((note) => note.state === 'delivered' && !(note.id in heard))
    .map((note) => note.id)
    .join(',');

  useEffect(() => {
    if (!unknown) return;
    let cancelled = false;
    const check = async () => {
      if (!navigator.onLine) return;
      const found: Record<string, string | null> = {};
      await Promise.all(
        unknown.split(',').map(async (id) => {
          const response = await fetch(`/api/r/${encodeURIComponent(token)}/notes/${id}/status`, { cache: 'no-store' }).catch(() => undefined);
          if (response?.status === 404) found[id] = null;
          else if (response?.ok) {
            const status = (await response.json()) as NoteHeard;
            if (status.heardAtLabel) found[id] = status.heardAtLabel;
          }
        }),
      );
      if (!cancelled && Object.keys(found).length) setHeard((known) => ({ ...known, ...found }));
    };
    void check();
    const timer = setInterval(() => void check(), POLL_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void check();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      cancelled = true;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [token, unknown]);

  return heard;
}
