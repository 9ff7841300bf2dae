import './words.js';
import { useEffect, useState } from 'react';
import { LoadingScreen } from '../components/LoadingScreen.js';
import { raceDate, tn, type Translate } from '../i18n/index.js';
import { LanguageMenu } from '../i18n/LanguageMenu.js';
import { useT } from '../i18n/useLanguage.js';
import { onlyRecorder, type RunnerRow } from './runners.js';
import { useRunners } from './useRunners.js';
import './homeScreen.css';
import { recorderPath } from '../../contract/paths.js';

function raceLine(t: Translate, row: RunnerRow): string {
  const race = row.race.name;
  if (row.when === 'live') return t('home.race.live', { race });
  if (row.when === 'past') return t('home.race.past', { race });
  return t('home.race.upcoming', { race, date: raceDate(row.race.date) });
}

/** What the person is asked before a runner leaves the list: what becomes of notes still waiting is always said. */
function confirmation(row: RunnerRow): { key: 'plain' | 'waiting' | 'gone'; deleteWaiting: boolean } {
  if (row.waiting === 0) return { key: 'plain', deleteWaiting: false };
  // A dead link's notes can never go: taking the runner off deletes them, and says so.
  return row.gone ? { key: 'gone', deleteWaiting: true } : { key: 'waiting', deleteWaiting: false };
}

function RunnerItem({ row, onRemove }: { row: RunnerRow; onRemove: () => void }) {
  const t = useT();
  const runner = row.runner;
  return (
    <li className={`home-card home-runner${row.gone ? ' is-gone' : ''}`} data-testid="runner">
      <h2 className="home-runner-name" data-testid="runner-name">
        {runner}
      </h2>
      <p className="home-muted" data-testid="runner-race">
        {raceLine(t, row)}
      </p>
      {row.gone ? <p className="home-runner-gone">{t('home.gone', { runner })}</p> : null}
      {row.waiting > 0 ? (
        <p className="home-runner-waiting" data-testid="runner-waiting">
          {tn('home.waiting', row.waiting)}
        </p>
      ) : null}
      {row.leaving ? <p className="home-muted">{t('home.leaving')}</p> : null}
      <div className="home-actions">
        {!row.gone && row.token !== undefined ? (
          <a className="home-button is-primary" href={recorderPath(row.token)}>
            {t('home.open', { runner })}
          </a>
        ) : null}
        {row.leaving ? null : (
          <button type="button" className="home-button is-quiet" aria-label={t('home.removeLabel', { runner })} onClick={onRemove}>
            {t('home.remove')}
          </button>
        )}
      </div>
    </li>
  );
}

/**
 * /home-screen, where the installed app starts (the manifest's start_url): the runners this
 * phone records for, each recorder one tap away; with a single runner, that recorder opens at once.
 */
export default function HomeScreen() {
  const t = useT();
  const { status, rows, offline, remove } = useRunners();
  const [problem, setProblem] = useState<() => string>();
  // Decided once, at the start: a list left with one runner after a removal stays a list.
  const [start, setStart] = useState<{ open?: string }>();
  useEffect(() => {
    if (status !== 'ready' || start) return;
    const open = onlyRecorder(rows);
    setStart({ open });
    if (open !== undefined) window.location.replace(recorderPath(open));
  }, [status, rows, start]);
  if (!start || start.open !== undefined) return <LoadingScreen />;

  const askToRemove = (row: RunnerRow) => {
    const runner = row.runner;
    const { key, deleteWaiting } = confirmation(row);
    const question =
      key === 'plain'
        ? t('home.confirmRemove', { runner })
        : key === 'gone'
          ? tn('home.confirmRemoveGone', row.waiting, { runner })
          : tn('home.confirmRemoveWaiting', row.waiting, { runner });
    if (!window.confirm(question)) return;
    setProblem(undefined);
    void remove(row, deleteWaiting).then(
      (done) => done || setProblem(() => () => t('home.removeFailed', { runner })),
      () => setProblem(() => () => t('home.removeFailed', { runner })),
    );
  };

  return (
    <main className="home">
      <LanguageMenu className="home-language" />
      <header className="home-header">
        <p className="home-eyebrow">MileNotes</p>
        <h1 className="home-title">{t('home.title')}</h1>
        <p className="home-muted">{t('home.lead')}</p>
      </header>
      {offline ? (
        <p className="home-offline" role="status" data-testid="home-offline">
          {t('home.offline')}
        </p>
      ) : null}
      {problem ? (
        <p className="home-alert" role="alert">
          {problem()}
        </p>
      ) : null}
      {rows.length === 0 ? (
        <p className="home-card">{t('home.empty')}</p>
      ) : (
        <ul className="home-runners" aria-label={t('home.title')}>
          {rows.map((row) => (
            <RunnerItem key={row.linkId} row={row} onRemove={() => askToRemove(row)} />
          ))}
        </ul>
      )}
    </main>
  );
}
