import { Suspense, useEffect, useRef, useState } from 'react';
import type { LinkInfo } from '../outbox/notes.js';
import { DetailsFields } from './DetailsFields.js';
import { EstimateLines, useEta, useRaceTime } from './Estimates.js';
import { FAILED, describeFailure, type FailedKey } from './failures.js';
import { t } from '../i18n/index.js';
import { useLanguage } from '../i18n/useLanguage.js';
import { NoteList } from './NoteList.js';
import { RaceClock } from './RaceClock.js';
import { ProgressChoice, ProgressLine, usePassedMarkers, useProgress } from './Progress.js';
import { RecordPanel } from './RecordPanel.js';
import { StatusLine } from './StatusLine.js';
import { useHeard } from './useHeard.js';
import { useLaterControls } from './useLaterControls.js';
import { useOutbox } from './useOutbox.js';
import { useOnline } from './useOnline.js';
import { useRecorder } from './useRecorder.js';
import { useStorageWarning } from './useStorageWarning.js';

const NAME_KEY = 'milenotes.from';

const mapDefined = <T, U>(value: T | undefined, f: (value: T) => U): U | undefined => (value === undefined ? undefined : f(value));

/** What the person put in the fields before this screen took them over (the server drew them; the first screen's script ran them). */
export interface Entered {
  marker?: string;
  name?: string;
}

/** One line of what went wrong, above the record panel. */
export const AlertLine = ({ text }: { text: string }) => (
  <p className="rec-alert" role="alert">
    {text}
  </p>
);

/** The name this phone sent a note with before; none where there is no storage (the server drawing the page). */
function storedName(): string {
  try {
    return globalThis.localStorage?.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}

/**
 * The recorder once the link is known: details, record panel, status and the person's notes.
 * `heardAt`: the phone's clock when `link` came; every time shown is on the server's clock from it.
 * `onFresh` shows a fresher answer (the race as the operator left it). `entered`: the
 * fields as they stand on a screen the server drew.
 */
export function RecorderScreen({
  token,
  link,
  heardAt,
  onFresh,
  entered,
}: {
  token: string;
  link: LinkInfo;
  heardAt: number;
  onFresh: (fresh: LinkInfo, heardAt: number) => void;
  entered?: Entered;
}) {
  const runner = link.runner.displayName;
  const recorder = useRecorder(token);
  const outbox = useOutbox(token);
  const heard = useHeard(token, outbox.notes);
  const online = useOnline();
  const storageWarning = useStorageWarning();
  const { progress, estimates, clock } = useProgress(token, link, heardAt, onFresh);
  const passed = usePassedMarkers(link.markers, progress);
  const eta = useEta(link.markers, estimates, clock);
  const timeOf = useRaceTime(link.race.timezone);
  // The push controls and the install offer load, and the push state is asked of the
  // server, only once a control could show: a note delivered (never beside a note still going up a
  // one-bar link), or the runner's times to be told ahead of.
  const delivered = outbox.notes.some((n) => n.state === 'delivered');
  const wanted = delivered || eta.times.size > 0;
  const Later = useLaterControls(wanted);
  const [alertSlot, setAlertSlot] = useState<HTMLDivElement | null>(null);
  const [marker, setMarker] = useState(() => entered?.marker ?? eta.suggested ?? '');
  // The first suggestion is preselected once, then the choice stays put as the clock
  // moves: a note goes where the picker showed, and a warning says when that is no longer in time.
  const preselected = useRef(eta.suggested !== undefined);
  useEffect(() => {
    if (preselected.current || !eta.suggested) return;
    preselected.current = true;
    setMarker((chosen) => chosen || eta.suggested!);
  }, [eta.suggested]);
  const [name, setName] = useState(() => entered?.name ?? storedName());
  const card = useRef<HTMLElement>(null);
  // What was typed or picked while React took the drawn screen over: the fields as they stand win.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, as the screen is taken over.
  useEffect(() => {
    if (!entered) return;
    const picked = card.current?.querySelector<HTMLSelectElement>('select[name="marker"]')?.value;
    const typed = card.current?.querySelector<HTMLInputElement>('input[name="from"]')?.value;
    if (picked !== undefined) setMarker(picked);
    if (typed !== undefined) setName(typed);
  }, []);
  // Kept as how to say it, so a change of language re-says it (useLanguage re-renders this screen).
  const [problem, setProblem] = useState<() => string>();
  useLanguage();
  const [sending, setSending] = useState(false);

  useEffect(() => {
    if (name.trim()) localStorage.setItem(NAME_KEY, name.trim());
  }, [name]);

  const state = recorder.state;
  const reviewing = state.phase === 'review' ? state.draftId : undefined;
  const leftover = outbox.drafts.find((d) => d.id !== recorder.activeId && d.id !== reviewing && d.updatedAt > d.startedAt);

  /** Runs what the person asked for; a failure becomes the alert line, never a silent drop. */
  function act(action: () => Promise<unknown>, failed: FailedKey) {
    setProblem(undefined);
    action().catch((error: unknown) => setProblem(() => () => describeFailure(error, failed)));
  }

  async function send(draftId: string, durationMs: number) {
    const chosen = link.markers.find((m) => m.id === marker);
    if (!chosen) return setProblem(() => () => t('send.chooseMarker', { runner }));
    if (!name.trim()) return setProblem(() => () => t('send.addName', { runner }));
    setProblem(undefined);
    setSending(true);
    try {
      await outbox.send(draftId, { marker: chosen.id, markerLabel: chosen.label, from: name.trim(), durationMs });
      recorder.reset();
    } catch (error) {
      setProblem(() => () => describeFailure(error, FAILED.save));
    } finally {
      setSending(false);
    }
  }

  return (
    <>
      <StatusLine online={online} waiting={outbox.pending} backgroundSync={outbox.backgroundSync} />
      <RaceClock runner={runner} race={link.race} clock={clock} />
      <section ref={card} className="rec-card" aria-label={t('send.sectionLabel')}>
        <ProgressLine runner={runner} progress={progress} timeZone={link.race.timezone} />
        <DetailsFields
          markers={link.markers}
          marker={marker}
          name={name}
          onMarker={setMarker}
          onName={setName}
          runner={runner}
          passed={passed}
          expectedAt={(id) => mapDefined(eta.times.get(id), timeOf)}
          suggested={eta.suggested}
          markerNote={<EstimateLines runner={runner} marker={marker} markers={link.markers} eta={eta} timeZone={link.race.timezone} />}
        />
        <ProgressChoice runner={runner} marker={marker} markers={link.markers} passed={passed} />
        {/* What the first screen's script may have changed before React came (a recording under way, a
            refusal): taken over as drawn when it matches, drawn again by React alone when not. */}
        <Suspense>
          {[storageWarning, outbox.failure && t(outbox.failure), recorder.warning, problem?.(), state.phase === 'blocked' ? state.message : undefined]
            .filter((text): text is string => Boolean(text))
            .map((text) => (
              <AlertLine key={text} text={text} />
            ))}
          <RecordPanel
            state={state}
            meter={recorder.meter}
            leftover={leftover}
            clock={clock}
            sending={sending}
            onRecord={() => act(recorder.start, FAILED.record)}
            onStop={recorder.stop}
            onSend={(id, ms) => void send(id, ms)}
            onRecordAgain={(id) => act(() => recorder.discard(id), FAILED.recordAgain)}
            onListen={(id) => act(() => recorder.review(id), FAILED.listen)}
          />
        </Suspense>
        {/* The marker alert, under Record: Record is what a friend came for, and nothing above it competes with it. */}
        <div ref={setAlertSlot} className="rec-push-slot" />
      </section>
      <NoteList
        runner={runner}
        notes={outbox.notes}
        progress={outbox.progress}
        heard={heard}
        online={online}
        clock={clock}
        onRetry={(id) => act(() => outbox.retry(id), FAILED.retry)}
        onDelete={(id) => act(() => outbox.remove(id), FAILED.delete)}
      />
      {Later ? (
        <Later
          token={token}
          runner={runner}
          notes={outbox.notes}
          wanted={wanted}
          delivered={delivered}
          alertSlot={alertSlot}
          marker={marker}
          label={link.markers.find((m) => m.id === marker)?.label}
          expectedAt={eta.times.get(marker)}
          now={eta.now}
        />
      ) : null}
    </>
  );
}
