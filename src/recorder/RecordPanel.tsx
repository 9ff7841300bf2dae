import { useEffect, useState, type RefCallback } from 'react';
import type { RecordingDraft } from '../outbox/notes.js';
import { elapsedText } from '../recording/elapsed.js';
import { clockTime } from '../i18n/index.js';
import type { PageClock } from '../serverClock.js';
import { useT } from '../i18n/useLanguage.js';
import type { RecorderState } from './useRecorder.js';
import { useInBrowser } from './useInBrowser.js';

interface Props {
  state: RecorderState;
  /** Where the live level is drawn while recording. */
  meter: RefCallback<HTMLElement>;
  /** A recording cut short by a reload or crash, offered back. */
  leftover?: RecordingDraft;
  /** The server's clock, which the leftover's time is said on (./serverClock.ts). */
  clock: PageClock;
  sending: boolean;
  onRecord: () => void;
  onStop: () => void;
  onSend: (draftId: string, durationMs: number) => void;
  onRecordAgain: (draftId: string) => void;
  onListen: (draftId: string) => void;
}

/**
 * The recording's clock. The first screen's script may have run it before React took the screen
 * over, a tick apart: its text is taken as it is (suppressHydrationWarning) and moves on at the next tick.
 */
function Elapsed({ startedAt }: { startedAt: number }) {
  const t = useT();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(id);
  }, []);
  return (
    <p className="rec-elapsed" aria-live="off" data-testid="elapsed" data-elapsed="" suppressHydrationWarning>
      {elapsedText(startedAt, now)} <span className="rec-muted">{t('record.ofMinute')}</span>
    </p>
  );
}

/** Record, stop, listen back, record again or send: the heart of the screen. */
export function RecordPanel({ state, meter, leftover, clock, sending, onRecord, onStop, onSend, onRecordAgain, onListen }: Props) {
  const t = useT();
  const working = useInBrowser();
  if (state.phase === 'recording') {
    return (
      <div className="rec-panel is-recording" data-panel="">
        <p className="rec-live">
          <span className="rec-live-dot" aria-hidden="true" /> {t('record.recording')}
        </p>
        <Elapsed startedAt={state.startedAt} />
        <div className="rec-meter" role="presentation">
          {/* The level is drawn by the engine (src/recording), into whichever screen's bar shows now. */}
          <span ref={meter} className="rec-meter-bar" data-meter="" suppressHydrationWarning />
        </div>
        <button type="button" className="rec-button is-stop" onClick={onStop} data-action="stop">
          {t('record.stop')}
        </button>
        <p className="rec-muted">{t('record.autoStop')}</p>
      </div>
    );
  }
  if (state.phase === 'review') {
    return (
      <div className="rec-panel">
        {state.recovered ? <p className="rec-notice">{t('record.recovered')}</p> : null}
        <p className="rec-muted">{t('record.yourNote', { length: elapsedText(0, state.durationMs) })}</p>
        {/* biome-ignore lint/a11y/useMediaCaption: the person's own voice note, just recorded: there is no caption track for a recording. */}
        <audio className="rec-audio" controls src={state.url} preload="metadata" aria-label={t('record.audioLabel')} />
        <div className="rec-actions">
          <button type="button" className="rec-button is-quiet" onClick={() => onRecordAgain(state.draftId)} disabled={sending}>
            {t('record.again')}
          </button>
          <button type="button" className="rec-button is-primary" onClick={() => onSend(state.draftId, state.durationMs)} disabled={sending}>
            {t('record.send')}
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="rec-panel" data-panel="">
      {leftover ? (
        <div className="rec-notice" data-testid="leftover">
          <p>
            {t('record.leftover', {
              time: clockTime(clock.at(leftover.startedAt)),
              seconds: Math.max(1, Math.round((leftover.updatedAt - leftover.startedAt) / 1000)),
            })}
          </p>
          <button type="button" className="rec-button" onClick={() => onListen(leftover.id)}>
            {t('record.listenAndSend')}
          </button>
        </div>
      ) : null}
      {/* Off until a script has its handler on it: the server draws it so, the first screen's script or React turns it on. */}
      <button type="button" className="rec-button is-record" onClick={onRecord} disabled={!working || state.phase === 'starting'} data-action="record">
        <span className="rec-record-dot" aria-hidden="true" /> {t('record.record')}
      </button>
      <p className="rec-muted">{t('record.hint')}</p>
    </div>
  );
}
