import { LoadingScreen } from '../components/LoadingScreen.js';
import { RECORDER_LEAD } from '../shell.js';
import { raceDate } from '../i18n/index.js';
import { LanguageMenu } from '../i18n/LanguageMenu.js';
import { useT } from '../i18n/useLanguage.js';
import { type Entered, RecorderScreen } from './RecorderScreen.js';
import { useInBrowser } from './useInBrowser.js';
import { type CarriedLink, useLink } from './useLink.js';

/**
 * /r/:token: record a voice note for a runner. Drawn by the server for a live link (its first
 * screen, with the link `carried` and the fields as `entered`), or loaded lazily behind the
 * 'Loading...' spinner (the worker's shell).
 */
export default function Recorder({ token, carried, entered }: { token: string; carried?: CarriedLink; entered?: Entered }) {
  const t = useT();
  const [link, heard] = useLink(token, carried);
  // Marks the screen as React's once it runs it (after taking over a drawn one): what a test or a person debugging looks for.
  const running = useInBrowser();
  // The shell's loading screen, as it was prerendered, until the link's data is in.
  if (link.status === 'loading') return <LoadingScreen lead={RECORDER_LEAD} />;
  if (link.status !== 'ready') {
    const gone = link.status === 'gone';
    return (
      <main className="rec">
        <LanguageMenu className="rec-language" />
        <h1 className="rec-title">{gone ? t('link.goneTitle') : t('link.unreachableTitle')}</h1>
        <p className="rec-alert" role="alert">
          {gone ? t('link.gone') : t('link.unreachable')}
        </p>
      </main>
    );
  }
  const { runner, race } = link.link;
  return (
    <main className="rec" data-screen="recorder" data-token={token} data-react={running ? '' : undefined}>
      <LanguageMenu className="rec-language" />
      <header className="rec-header">
        <p className="rec-eyebrow">{t('link.eyebrow')}</p>
        <h1 className="rec-title">{runner.displayName}</h1>
        <p className="rec-muted">
          {race.name} · {raceDate(race.date)}
        </p>
      </header>
      <RecorderScreen token={token} link={link.link} heardAt={link.heardAt} onFresh={heard} entered={entered} />
    </main>
  );
}
