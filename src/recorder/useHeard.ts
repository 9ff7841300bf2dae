import { useEffect, useState } from 'react';
import { getNoteHeard } from '../apiClient.js';
import type { NoteNews, OutboxNote } from '../outbox/notes.js';
import { keepNews } from './noteNews.js';

/** Race day is long; asking every two minutes is plenty and costs a few hundred bytes. */
const POLL_MS = 2 * 60_000;

export type { NoteNews };

/** What the page last heard of a delivered note: final news, or that it is on the runner's phone (not final: heard may follow). */
export type NoteWord = NoteNews | { kind: 'onPhone' };

const isFinal = (word: NoteWord | undefined): word is NoteNews => word !== undefined && word.kind !== 'onPhone';

/**
 * Asks the server about each delivered note, which tells only the holder of the note's id. Each
 * final answer (heard, unplayable, gone) ends the asking and is kept on the note's record, so the
 * phone says it offline and after a reload without asking again. "On the runner's phone" is shown
 * but neither kept nor final: the asking goes on until the note is heard.
 */
export function useHeard(token: string, notes: OutboxNote[]): Record<string, NoteWord> {
  const [fresh, setFresh] = useState<Record<string, NoteWord>>({});
  const heard: Record<string, NoteWord> = { ...fresh };
  for (const note of notes) if (note.news && !isFinal(heard[note.id])) heard[note.id] = note.news;
  const unknown = notes
    .filter((note) => note.state === 'delivered' && !isFinal(heard[note.id]))
    .map((note) => note.id)
    .join(',');

  useEffect(() => {
    if (!unknown) return;
    let cancelled = false;
    const check = async () => {
      if (!navigator.onLine) return;
      const found: Record<string, NoteWord> = {};
      await Promise.all(
        unknown.split(',').map(async (id) => {
          // Unreachable: ask again at the next poll; nothing is lost by not knowing yet.
          const answer = await getNoteHeard(token, id);
          if (!answer.ok && answer.reason === 'not-found') found[id] = { kind: 'gone' };
          else if (answer.ok && answer.value.status === 'failed') found[id] = { kind: 'unplayable' };
          else if (answer.ok && answer.value.heardAtLabel) found[id] = { kind: 'heard', at: answer.value.heardAtLabel, marker: answer.value.heardAtMarker };
          else if (answer.ok && answer.value.onRunnersPhone) found[id] = { kind: 'onPhone' };
        }),
      );
      // Kept even if this screen is gone meanwhile: the phone should not have to ask again.
      for (const [id, news] of Object.entries(found)) if (news.kind !== 'onPhone') void keepNews(id, news).catch(() => undefined);
      if (!cancelled && Object.keys(found).length) setFresh((known) => ({ ...known, ...found }));
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
