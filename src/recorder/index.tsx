import { LoadingScreen } from '../components/LoadingScreen.js';
import { formatRaceDate } from '../shared/dates.js';
import { RECORDER_LEAD } from '../shell.js';
import { RecorderScreen } from './RecorderScreen.js';
import { useLink } from './useLink.js';
import './recorder.css';

/** /r/:token: record a voice note for a runner. Loaded lazily behind the 'Loading...' spinner. */
export default function Recorder({ token }: { token: string }) {
  const link = useLink(token);
  // The shell's loading screen, as it was prerendered, until the link's data is in.
  if (link.status === 'loading') return <LoadingScreen lead={RECORDER_LEAD} />;
  if (link.status !== 'ready') {
    return (
      <main className="rec">
        <h1 className="rec-title">{link.status === 'gone' ? 'This link is not active' : "Can't load this link"}</h1>
        <p className="rec-alert" role="alert">
          {link.message}
        </p>
      </main>
    );
  }
  const { runner, race } = link.link;
  return (
    <main className="rec">
      <header className="rec-header">
        <p className="rec-eyebrow">Record a voice note for</p>
        <h1 className="rec-title">{runner.displayName}</h1>
        <p className="rec-muted">
          {race.name} · {formatRaceDate(race.date)}
        </p>
      </header>
      <RecorderScreen token={token} link={link.link} />
    </main>
  );
}
