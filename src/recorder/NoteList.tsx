import type { OutboxNote } from '../outbox/notes.js';
import { clockTime, markerName, type Translate } from '../i18n/index.js';
import { useT } from '../i18n/useLanguage.js';
import { nextTry, noteReason } from './noteWords.js';
import type { PageClock } from '../serverClock.js';
import type { NoteWord } from './useHeard.js';

interface Props {
  runner: string;
  notes: OutboxNote[];
  progress: Record<string, number>;
  /** What the server said of a delivered note: on the runner's phone, heard at 'Mile 13', or not playable (./useHeard.ts). */
  heard: Record<string, NoteWord>;
  /** The browser believes it has a network: offline, a held note waits for one whatever its backoff says. */
  online: boolean;
  /** The server's clock, which a note's times are said on (./serverClock.ts). */
  clock: PageClock;
  onRetry: (id: string) => void;
  onDelete: (id: string) => void;
}

/**
 * Where the note is, as far as this page knows: on this phone, going up, safe on the server, on the
 * runner's phone (their app downloaded it), heard.
 */
function stateLabel(t: Translate, note: OutboxNote, progress: number | undefined, runner: string, news: NoteWord | undefined): string {
  switch (note.state) {
    case 'waiting':
      return t('note.waiting');
    case 'sending':
      return progress === undefined ? t('note.sending') : t('note.sendingPercent', { percent: Math.round(progress * 100) });
    case 'delivered':
      // Gone: the server no longer says anything of it (the runner removed it, or the link was turned off).
      if (news?.kind === 'gone') return t('note.sent');
      if (news?.kind === 'heard') return t('note.heard', { runner });
      return news?.kind === 'onPhone' ? t('note.onPhone', { runner }) : t('note.safe');
    case 'failed':
      return t('note.failed');
  }
}

/** Every note this person made for this runner, newest last, with what is happening to it. */
export function NoteList({ runner, notes, progress, heard, online, clock, onRetry, onDelete }: Props) {
  const t = useT();
  if (!notes.length) return null;
  // The page re-reads its notes when one is tried again (pageOutbox's timer), which re-renders this.
  const now = Date.now();
  return (
    <section className="rec-card" aria-labelledby="rec-notes-title">
      <h2 id="rec-notes-title">{t('notes.title', { runner })}</h2>
      <ul className="rec-notes">
        {notes.map((note) => {
          const news = note.state === 'delivered' ? heard[note.id] : undefined;
          // Delivered, but it will never play: it looks like a note that needs attention, as it does.
          const unplayable = news?.kind === 'unplayable';
          const reason = note.state === 'delivered' ? undefined : noteReason(note, runner);
          const when = nextTry(note, online, now, clock.at);
          return (
            <li key={note.id} className={`rec-note is-${unplayable ? 'failed' : note.state}`} data-testid="note" data-note-id={note.id}>
              <div className="rec-note-head">
                <strong>{markerName(note.marker, note.markerLabel)}</strong>
                <span className="rec-note-meta">
                  {t('note.meta', { time: clockTime(clock.at(note.createdAt)), seconds: Math.max(1, Math.round(note.durationMs / 1000)), from: note.from })}
                </span>
              </div>
              <p className="rec-note-state" data-testid="note-state">
                {unplayable ? t('note.unplayable') : stateLabel(t, note, progress[note.id], runner, news)}
              </p>
              {note.state === 'delivered' && !news ? (
                <p className="rec-note-reason" data-testid="note-waiting-phone">
                  {t('note.waitingForPhone', { runner })}
                </p>
              ) : null}
              {news?.kind === 'heard' ? (
                <p className="rec-note-heard" data-testid="note-heard">
                  {t('note.heardAt', { marker: news.marker ? markerName(news.marker, news.at) : news.at })}
                </p>
              ) : null}
              {unplayable ? (
                <p className="rec-note-reason" data-testid="note-unplayable">
                  {t('note.unplayableReason', { runner })}
                </p>
              ) : null}
              {reason ? (
                <p className="rec-note-reason" data-testid="note-reason">
                  {reason}
                  {when ? <span data-testid="note-next-try"> {when}</span> : null}
                </p>
              ) : null}
              {note.state === 'failed' ? (
                <div className="rec-actions">
                  <button type="button" className="rec-button" onClick={() => onRetry(note.id)}>
                    {t('note.retry')}
                  </button>
                  <button
                    type="button"
                    className="rec-button is-quiet"
                    onClick={() => {
                      if (window.confirm(t('note.confirmDelete', { runner }))) onDelete(note.id);
                    }}
                  >
                    {t('note.delete')}
                  </button>
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
