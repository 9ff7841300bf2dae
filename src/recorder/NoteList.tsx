import type { OutboxNote } from '../shared/notes.js';
import type { NoteNews } from './useHeard.js';

interface Props {
  runner: string;
  notes: OutboxNote[];
  progress: Record<string, number>;
  /** What the server said of a delivered note: heard at 'Mile 13', or not playable (src/recorder/useHeard.ts). */
  heard: Record<string, NoteNews>;
  onRetry: (id: string) => void;
  onDelete: (id: string) => void;
}

function stateLabel(note: OutboxNote, progress: number | undefined): string {
  switch (note.state) {
    case 'waiting':
      return 'Saved on this phone';
    case 'sending':
      return progress === undefined ? 'Sending' : `Sending ${Math.round(progress * 100)}%`;
    case 'delivered':
      return 'Delivered';
    case 'failed':
      return 'Needs attention';
  }
}

const time = (ms: number) => new Date(ms).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });

/** Every note this person made for this runner, newest last, with what is happening to it. */
export function NoteList({ runner, notes, progress, heard, onRetry, onDelete }: Props) {
  if (!notes.length) return null;
  return (
    <section className="rec-card" aria-labelledby="rec-notes-title">
      <h2 id="rec-notes-title">Your notes for {runner}</h2>
      <ul className="rec-notes">
        {notes.map((note) => {
          const news = note.state === 'delivered' ? heard[note.id] : undefined;
          // Delivered, but it will never play: it looks like a note that needs attention, as it does.
          const unplayable = news?.kind === 'unplayable';
          return (
            <li key={note.id} className={`rec-note is-${unplayable ? 'failed' : note.state}`} data-testid="note" data-note-id={note.id}>
              <div className="rec-note-head">
                <strong>{note.markerLabel}</strong>
                <span className="rec-note-meta">
                  {time(note.createdAt)} · {Math.max(1, Math.round(note.durationMs / 1000))} s · from {note.from}
                </span>
              </div>
              <p className="rec-note-state" data-testid="note-state">
                {unplayable ? "Can't be played" : stateLabel(note, progress[note.id])}
              </p>
              {news?.kind === 'heard' ? (
                <p className="rec-note-heard" data-testid="note-heard">
                  Heard at {news.at}
                </p>
              ) : null}
              {unplayable ? (
                <p className="rec-note-reason" data-testid="note-unplayable">
                  This note arrived, but its sound could not be used, so {runner} won't hear it. Please record it again.
                </p>
              ) : null}
              {note.state !== 'delivered' && note.lastError ? <p className="rec-note-reason">{note.lastError}</p> : null}
              {note.state === 'failed' ? (
                <div className="rec-actions">
                  <button type="button" className="rec-button" onClick={() => onRetry(note.id)}>
                    Retry
                  </button>
                  <button
                    type="button"
                    className="rec-button is-quiet"
                    onClick={() => {
                      if (window.confirm(`Delete this note? It has not reached ${runner} and cannot be recovered.`)) onDelete(note.id);
                    }}
                  >
                    Delete
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
