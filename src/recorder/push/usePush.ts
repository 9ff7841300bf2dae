/**
 * This phone's notifications on a link, for the recorder's controls: what the server
 * holds for it, and the taps that change it. Nothing is asked of the browser until a tap; on iPhone
 * outside the Home Screen app a tap only explains how to get there. A change of language while
 * subscribed is sent along, so notices speak the language the person reads.
 */
import '../laterWords.js';
import { useCallback, useEffect, useState } from 'react';
import { addMarkerAlert, getPushState, removeMarkerAlert, subscribePush, unsubscribePush, type PushAnswer } from './pushClient.js';
import type { PushState } from '../../../contract/pushApi.js';
import { t } from '../../i18n/index.js';
import { useLanguage } from '../../i18n/useLanguage.js';
import { browserSubscription } from './browserPush.js';
import { pushSupport, thisPlatform, type PushSupport } from './platform.js';
import { pushRefusalWords } from './pushWords.js';

/** The two controls: told when heard, told when near a marker. */
export type PushControlKind = 'heard' | 'alert';

export interface PushControl {
  /** The controls show only once this is known and push is on (the server can send, this phone can be told or learn how). */
  state: PushState | undefined;
  support: PushSupport;
  /** iPhone outside the Home Screen app, after a tap on this control: how to get there. */
  installHint: PushControlKind | undefined;
  /** Why the last tap did not work, as words, under the control tapped. */
  problem: { on: PushControlKind; text: string } | undefined;
  busy: boolean;
  /** Told (or no longer) when the runner hears this phone's notes. */
  setHeard(on: boolean): void;
  /** Told (or no longer) when the runner is about ten minutes from the marker. */
  setAlert(marker: string, on: boolean): void;
}

/**
 * `wanted`: a control could show (a note of this phone delivered, or times to be told ahead of).
 * Until then nothing is asked of the server: a first visit, or a note going up one bar, shares the
 * link with no request of this.
 */
export function usePush(token: string, runner: string, wanted: boolean): PushControl {
  const [support] = useState(() => pushSupport(thisPlatform()));
  const [state, setState] = useState<PushState>();
  const [installHint, setInstallHint] = useState<PushControlKind>();
  const [problem, setProblem] = useState<PushControl['problem']>();
  const [busy, setBusy] = useState(false);
  const lang = useLanguage();

  const asked = wanted || state !== undefined;
  useEffect(() => {
    if (support === 'unsupported' || !asked) return;
    let gone = false;
    // Push off (push_off) or no answer: no control is shown.
    void getPushState(token).then((answer) => !gone && answer.ok && setState(answer.value));
    return () => {
      gone = true;
    };
  }, [token, support, asked]);

  /** Saves this browser's subscription with what the phone asks for; the new state, or why not. */
  const save = useCallback(
    async (heard: boolean, fromTap: boolean): Promise<PushAnswer<PushState> | 'denied'> => {
      if (!state) return { ok: false, code: undefined };
      const browser = await browserSubscription(state.publicKey, fromTap);
      if (browser === 'denied') return 'denied';
      return subscribePush(token, { ...browser, lang, heard });
    },
    [state, token, lang],
  );

  // Notices speak the language in use: a change is sent along, without a prompt (only a permission given is used).
  useEffect(() => {
    if (!state?.subscribed || !state.lang || state.lang === lang) return;
    void save(state.heard, false).then(
      (answer) => answer !== 'denied' && answer.ok && setState(answer.value),
      () => undefined,
    );
  }, [lang, state, save]);

  const act = (on: PushControlKind, work: () => Promise<PushAnswer<PushState | undefined> | 'denied'>, marker?: string) => {
    if (support === 'install-first') return setInstallHint(on);
    setProblem(undefined);
    setBusy(true);
    void work()
      .then(async (answer) => {
        if (answer === 'denied') return setProblem({ on, text: t('push.denied') });
        if (!answer.ok) return setProblem({ on, text: pushRefusalWords(answer.code, runner, marker, answer.retryAfter) });
        if (answer.value) return setState(answer.value);
        // Turned off (204): what is left, as the server holds it.
        const fresh = await getPushState(token);
        if (fresh.ok) setState(fresh.value);
      })
      .catch(() => setProblem({ on, text: t('push.failed') }))
      .finally(() => setBusy(false));
  };

  return {
    state,
    support,
    installHint,
    problem,
    busy,
    setHeard: (on) =>
      act('heard', async () => {
        if (on) return save(true, true);
        // Alerts still waiting keep the subscription; without any, it goes.
        return state?.alerts.some((a) => !a.sent) ? save(false, false) : unsubscribePush(token);
      }),
    setAlert: (marker, on) =>
      act(
        'alert',
        async () => {
          if (!on) {
            const removed = await removeMarkerAlert(token, marker);
            if (!removed.ok || state?.heard || state?.alerts.some((a) => a.marker !== marker && !a.sent)) return removed;
            return unsubscribePush(token);
          }
          if (!state?.subscribed) {
            const saved = await save(false, true);
            if (saved === 'denied' || !saved.ok) return saved;
          }
          return addMarkerAlert(token, marker);
        },
        marker,
      ),
  };
}
