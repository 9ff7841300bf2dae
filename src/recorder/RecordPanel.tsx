import { useEffect, useState, type RefObject } from 'react';
import type { RecordingDraft } from '../shared/notes.js';
import { MAX_RECORDING_MS } from '../shared/limits.js';
import type { RecorderState } from './useRecorder.js';

interface Props {
  state: RecorderState;
  meter: RefObject<HTMLSpanElement | null>;
  /** A recording cut short by a reload or crash, offered back. */
  leftover?: RecordingDraft;
  sending: boolean;
  onRecord: () => void;
  onStop: () => void;
  onSend: (draftId: string, durationMs: number) => void;
  onRecordAgain: (draftId: string) => void;
  onListen: (draftId: string) => void;
}

const seconds = (ms: number) => `0:${String(Math.floor(ms / 1000)).padStart(2, '0')}`;

function Elapsed({ startedAt }: { startedAt: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(id);
  }, []);
  const elapsed = Math.min(now - startedAt, MAX_RECORDING_MS);
  return (
    <p className="rec-elapsed" aria-live="off" data-testid="elapsed">
      {seconds(elapsed)} <span className="rec-muted">of 1:00</span>
    </p>
  );
}

/** Record, stop, listen back, record again or send: the heart of the screen. */
export function RecordPanel({ state, meter, leftover, sending, onRecord, onStop, onSend, onRecordAgain, onListen }: Props) {
  if (state.phase === 'recording') {
    return (
      <div className="rec-panel is-recording">
        <p className="rec-live">
          <span className="rec-live-dot" aria-hidden="true" /> Recording
        </p>
        <Elapsed startedAt={state.startedAt} />
        <div className="rec-meter" role="presentation">
          <span ref={meter} className="rec-meter-bar" />
        </div>
        <button type="button" className="rec-button is-stop" onClick={onStop}>
          Stop
        </button>
        <p className="rec-muted">It stops by itself at one minute.</p>
      </div>
    );
  }
  if (state.phase === 'review') {
    return (
      <div className="rec-panel">
        {state.recovered ? (
          <p className="rec-notice">We kept the recording that was interrupted. Listen to it, then send it or record again.</p>
        ) : null}
        <p className="rec-muted">Your note · {seconds(state.durationMs)}</p>
        <audio className="rec-audio" controls src={state.url} preload="metadata" aria-label="Your recorded note" />
        <div className="rec-actions">
          <button type="button" className="rec-button is-quiet" onClick={() => onRecordAgain(state.draftId)} disabled={sending}>
            Record again
          </button>
          <button type="button" className="rec-button is-primary" onClick={() => onSend(state.draftId, state.durationMs)} disabled={sending}>
            Send
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="rec-panel">
      {leftover ? (
        <div className="rec-notice" data-testid="leftover">
          <p>
            You have an unfinished recording from{' '}
            {new Date(leftover.startedAt).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' })} (about{' '}
            {Math.max(1, Math.round((leftover.updatedAt - leftover.startedAt) / 1000))} s). It was kept on this phone.
          </p>
          <button type="button" className="rec-button" onClick={() => onListen(leftover.id)}>
            Listen and send
          </button>
        </div>
      ) : null}
      <button type="button" className="rec-button is-record" onClick={onRecord} disabled={state.phase === 'starting'}>
        <span className="rec-record-dot" aria-hidden="true" /> Record
      </button>
      <p className="rec-muted">Up to one minute. Speak close to the phone.</p>
    </div>
  );
}
