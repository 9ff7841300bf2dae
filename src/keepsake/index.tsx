import { formatRaceDate } from '../shared/dates.js';
import type { Keepsake as KeepsakeData } from '../shared/runnerApi.js';
import { useKeepsake } from './useKeepsake.js';
import './keepsake.css';

const seconds = (ms: number | null) => (ms === null ? '' : ` · ${Math.max(1, Math.round(ms / 1000))} s`);

function NoteList({ notes }: { notes: KeepsakeData['notes'] }) {
  if (notes.length === 0) return <p className="ks-muted">No notes are shared here yet.</p>;
  return (
    <ol className="ks-notes">
      {notes.map((note) => (
        <li key={note.id} className="ks-note">
          <p className="ks-marker">{note.markerLabel}</p>
          <p className="ks-from">
            From {note.from}
            <span className="ks-muted">{seconds(note.durationMs)}</span>
          </p>
          <audio className="ks-audio" controls preload="metadata" src={note.audioUrl} aria-label={`Voice note from ${note.from} at ${note.markerLabel}`} />
        </li>
      ))}
    </ol>
  );
}

/** /s/:token: the notes a runner chose to share after the race, playable by anyone with the link. */
export default function Keepsake({ token }: { token: string }) {
  const state = useKeepsake(token);
  if (state.status === 'loading') {
    return (
      <main className="ks">
        <p className="ks-muted" role="status">Loading...</p>
      </main>
    );
  }
  if (state.status !== 'ready') {
    return (
      <main className="ks">
        <h1 className="ks-title">{state.status === 'gone' ? "These notes aren't shared" : "Can't load these notes"}</h1>
        <p className="ks-alert" role="alert">{state.message}</p>
      </main>
    );
  }
  const { runner, race, notes } = state.keepsake;
  return (
    <main className="ks">
      <header className="ks-header">
        <p className="ks-eyebrow">Voice notes for</p>
        <h1 className="ks-title">{runner.displayName}</h1>
        <p className="ks-muted">{race.name} · {formatRaceDate(race.date)}</p>
      </header>
      <NoteList notes={notes} />
    </main>
  );
}
