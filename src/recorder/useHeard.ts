import { useEffect, useState } from 'react';
import { getNoteHeard } from '../apiClient.js';
import type { OutboxNote } from '../shared/notes.js';

/** Race day is long; asking every two minutes is plenty and costs a few hundred bytes. */
const POLL_MS = 2 * 60_000;

/**
 * What the server has to say of a delivered note, once it has something: where the runner heard
 * it ('Mile 13', and the marker's id, which the page names in the sender's language); that it arrived but cannot be played (its conversion failed for good, so the
 * runner will never hear it); or that the server no longer knows it. Each ends the asking.
 */
export type NoteNews = { kind: 'heard'; at: string; marker?: string } | { kind: 'unplayable' } | { kind: 'gone' };

/** Asks the server about each delivered note, which tells only the holder of the note's id. */
export function useHeard(token: string, notes: OutboxNote[]): Record<string, NoteNews> {
  const [heard, setHeard] = useState<Record<string, NoteNews>>({});
  const unknown = notes
    .filter((note) => note.state === 'delivered' && !(note.id in heard))
    .map((note) => note.id)
    .join(',');

  useEffect(() => {
    if (!unknown) return;
    let cancelled = false;
    const check = async () => {
      if (!navigator.onLine) return;
      const found: Record<string, NoteNews> = {};
      await Promise.all(
        unknown.split(',').map(async (id) => {
          // Unreachable: ask again at the next poll; nothing is lost by not knowing yet.
          const answer = await getNoteHeard(token, id);
          if (!answer.ok && answer.reason === 'not-found') found[id] = { kind: 'gone' };
          else if (answer.ok && answer.value.status === 'failed') found[id] = { kind: 'unplayable' };
          else if (answer.ok && answer.value.heardAtLabel) found[id] = { kind: 'heard', at: answer.value.heardAtLabel, marker: answer.value.heardAtMarker };
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
