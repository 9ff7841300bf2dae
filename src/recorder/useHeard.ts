import { useEffect, useState } from 'react';
import { getNoteHeard } from '../apiClient.js';
import type { OutboxNote } from '../shared/notes.js';

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
          // Unreachable: ask again at the next poll; nothing is lost by not knowing yet.
          const answer = await getNoteHeard(token, id);
          if (!answer.ok && answer.reason === 'not-found') found[id] = null;
          else if (answer.ok && answer.value.heardAtLabel) found[id] = answer.value.heardAtLabel;
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
