import './words.js';
import { markerName, raceDate } from '../i18n/index.js';
import { LanguageMenu } from '../i18n/LanguageMenu.js';
import { useT } from '../i18n/useLanguage.js';
import type { Keepsake as KeepsakeData } from '../../contract/runnerApi.js';
import { useKeepsake } from './useKeepsake.js';
import './keepsake.css';

const seconds = (ms: number | null) => (ms === null ? '' : ` · ${Math.max(1, Math.round(ms / 1000))} s`);

function NoteList({ notes }: { notes: KeepsakeData['notes'] }) {
  const t = useT();
  if (notes.length === 0) return <p className="ks-muted">{t('keepsake.none')}</p>;
  return (
    <ol className="ks-notes">
      {notes.map((note) => {
        const marker = markerName(note.marker, note.markerLabel);
        return (
          <li key={note.id} className="ks-note">
            <p className="ks-marker">{marker}</p>
            <p className="ks-from">
              {t('keepsake.from', { from: note.from })}
              <span className="ks-muted">{seconds(note.durationMs)}</span>
            </p>
            {/* biome-ignore lint/a11y/useMediaCaption: a friend's voice note: there is no caption track for a recording people make. */}
            <audio className="ks-audio" controls preload="metadata" src={note.audioUrl} aria-label={t('keepsake.audioLabel', { from: note.from, marker })} />
          </li>
        );
      })}
    </ol>
  );
}

/** /s/:token: the notes a runner chose to share after the race, playable by anyone with the link. */
export default function Keepsake({ token }: { token: string }) {
  const t = useT();
  const state = useKeepsake(token);
  if (state.status === 'loading') {
    return (
      <main className="ks">
        <p className="ks-muted" role="status">
          {t('keepsake.loading')}
        </p>
      </main>
    );
  }
  if (state.status !== 'ready') {
    const gone = state.status === 'gone';
    return (
      <main className="ks">
        <LanguageMenu className="ks-language" />
        <h1 className="ks-title">{gone ? t('keepsake.goneTitle') : t('keepsake.unreachableTitle')}</h1>
        <p className="ks-alert" role="alert">
          {gone ? t('keepsake.gone') : t('keepsake.unreachable')}
        </p>
      </main>
    );
  }
  const { runner, race, notes } = state.keepsake;
  return (
    <main className="ks">
      <LanguageMenu className="ks-language" />
      <header className="ks-header">
        <p className="ks-eyebrow">{t('keepsake.eyebrow')}</p>
        <h1 className="ks-title">{runner.displayName}</h1>
        <p className="ks-muted">
          {race.name} · {raceDate(race.date)}
        </p>
      </header>
      <NoteList notes={notes} />
    </main>
  );
}
