/**
 * Makes the recorder's first screen work as the server drew it into the page, before React has
 * arrived: Record asks for the microphone and records through the page's one recording engine
 * (src/recording), the recording panel the server drew in a template shows the clock and the level,
 * Stop stops. No framework and no words: every word is in the page. React takes the screen over
 * (src/recorderApp.tsx) with TAKEOVER_EVENT; from then on this script draws nothing.
 */
import { recording, type RecordingState } from '../recording/engine.js';
import { elapsedText } from '../recording/elapsed.js';
import { drawnScreen, TAKEOVER_EVENT } from './takeover.js';
import { MIC_DENIED_TEMPLATE_ID, RECORDING_PANEL_TEMPLATE_ID } from './templates.js';

/** Where the sender's name is kept between visits (src/recorder/RecorderScreen.tsx keeps it). */
const NAME_KEY = 'milenotes.from';

/** A copy of a template's first element. */
function fromTemplate(id: string): HTMLElement | undefined {
  const template = document.getElementById(id);
  return template instanceof HTMLTemplateElement ? ((template.content.firstElementChild?.cloneNode(true) as HTMLElement | null) ?? undefined) : undefined;
}

/** The name this phone sent a note with before, in the empty field, as the React screen would start with it. */
function fillName(screen: HTMLElement): void {
  const field = screen.querySelector<HTMLInputElement>('input[name="from"]');
  try {
    const kept = localStorage.getItem(NAME_KEY);
    if (field && !field.value && kept) field.value = kept;
  } catch {
    // No storage here: the field stays empty.
  }
}

/** Runs the first screen, if the server drew one: Record works from here on. */
export function runFirstScreen(): void {
  const screen = drawnScreen(document);
  const token = screen?.dataset.token;
  const drawnIdle = screen?.querySelector<HTMLElement>('[data-panel]');
  const drawnButton = drawnIdle?.querySelector<HTMLButtonElement>('button[data-action="record"]');
  if (!screen || token === undefined || !drawnIdle || !drawnButton) return;
  const idle = drawnIdle;
  const button = drawnButton;
  // After the first paint: a phone's first read of localStorage can hold the page for a while.
  let taken = false;
  requestAnimationFrame(() => setTimeout(() => taken || fillName(screen), 0));

  let shown = idle;
  let live: HTMLElement | undefined;
  let denied: HTMLElement | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const record = () => void recording.start(token);
  const stop = () => recording.stop();
  const show = (panel: HTMLElement) => {
    if (panel !== shown) shown.replaceWith(panel);
    shown = panel;
  };

  /** The recording panel as React draws it: the clock moving, the level in its bar, Stop. */
  function drawRecording(startedAt: number, running: boolean): void {
    if (!live) {
      live = fromTemplate(RECORDING_PANEL_TEMPLATE_ID);
      live?.querySelector('[data-action="stop"]')?.addEventListener('click', stop);
    }
    if (!live) return;
    show(live);
    recording.meterInto(live.querySelector<HTMLElement>('[data-meter]'));
    // The clock's text is its first node: the words after it stay as drawn.
    const clock = live.querySelector('[data-elapsed]')?.firstChild;
    const tick = () => clock && (clock.nodeValue = elapsedText(startedAt, Date.now()));
    tick();
    if (running) ticker = setInterval(tick, 250);
  }

  function draw(state: RecordingState): void {
    clearInterval(ticker);
    denied?.remove();
    if (state.phase === 'recording' || state.phase === 'stopped') {
      drawRecording(state.startedAt, state.phase === 'recording');
      return;
    }
    show(idle);
    button.disabled = state.phase === 'starting';
    // A refused microphone is said as React says it; anything rarer waits for React's words.
    if (state.phase === 'blocked' && state.blocked.kind === 'microphone' && /^(NotAllowed|Security)Error$/.test(state.blocked.error ?? '')) {
      denied ??= fromTemplate(MIC_DENIED_TEMPLATE_ID);
      if (denied) idle.before(denied);
    }
  }

  button.addEventListener('click', record);
  const unsubscribe = recording.subscribe(() => draw(recording.snapshot()));
  // The button is on from here: its handler records.
  draw(recording.snapshot());
  screen.addEventListener(
    TAKEOVER_EVENT,
    () => {
      taken = true;
      unsubscribe();
      clearInterval(ticker);
      button.removeEventListener('click', record);
      live?.querySelector('[data-action="stop"]')?.removeEventListener('click', stop);
    },
    { once: true },
  );
}
