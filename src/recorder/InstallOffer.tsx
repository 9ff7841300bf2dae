import './laterWords.js';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { canPromptInstall, promptInstall, subscribeInstallPrompt } from '../installPrompt.js';
import { notesNotDelivered } from '../outbox/badge.js';
import type { OutboxNote } from '../outbox/notes.js';
import { tn } from '../i18n/index.js';
import { useT } from '../i18n/useLanguage.js';
import { dismissOffer, installOfferFor, offerDismissed, type InstallOffer as Offer } from './installOffer.js';

const STANDALONE = '(display-mode: standalone), (display-mode: fullscreen), (display-mode: minimal-ui)';

/** Running as the installed app: Chromium's display modes, or iOS's own flag. */
function runsInstalled(): boolean {
  return window.matchMedia?.(STANDALONE).matches === true || (navigator as Navigator & { standalone?: boolean }).standalone === true;
}

function localStore(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** What to offer now, from this runner's notes and the browser's facts (installOffer.ts decides). */
function useInstallOffer(notes: readonly OutboxNote[]): [Offer, () => void] {
  const canPrompt = useSyncExternalStore(subscribeInstallPrompt, canPromptInstall, () => false);
  const [dismissed, setDismissed] = useState(() => offerDismissed(localStore()));
  const [waiting, setWaiting] = useState(0);
  // Safari's outbox as a whole, every runner's notes: what stays behind in Safari if the person installs now.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a change in this runner's notes is when the whole outbox is counted again.
  useEffect(() => {
    let live = true;
    notesNotDelivered().then(
      (n) => live && setWaiting(n),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [notes]);
  const offer = installOfferFor({
    userAgent: navigator.userAgent,
    maxTouchPoints: navigator.maxTouchPoints ?? 0,
    installed: runsInstalled(),
    canPrompt,
    dismissed,
    delivered: notes.some((n) => n.state === 'delivered'),
    waiting,
  });
  const dismiss = () => {
    dismissOffer(localStore());
    setDismissed(true);
  };
  return [offer, dismiss];
}

/**
 * Installing offered after the person's first note is sent: Chromium's own dialog from a
 * button, or, in iPhone Safari, the steps in iOS's words. "Not now" (or a dialog turned down) keeps
 * it away on this phone.
 */
export function InstallOffer({ runner, notes }: { runner: string; notes: readonly OutboxNote[] }) {
  const t = useT();
  const [offer, dismiss] = useInstallOffer(notes);
  if (offer.kind === 'none') return null;
  const install = () => {
    void promptInstall().then(
      (outcome) => {
        // Accepted: the browser installs, and no event comes again. Turned down: that is a "Not now".
        if (outcome === 'dismissed') dismiss();
      },
      () => undefined,
    );
  };
  return (
    <section className="rec-card rec-install" aria-labelledby="rec-install-title" data-testid="install-offer">
      <h2 id="rec-install-title">{t('install.title')}</h2>
      {offer.kind === 'prompt' ? (
        <p>{t('install.why', { runner })}</p>
      ) : (
        <>
          <p>{t('install.iosWhy', { runner })}</p>
          <p className="rec-install-steps">{t('install.iosSteps')}</p>
          {offer.waiting > 0 ? <p>{tn('install.iosWaiting', offer.waiting)}</p> : null}
        </>
      )}
      <div className="rec-actions">
        {offer.kind === 'prompt' ? (
          <button type="button" className="rec-button is-primary" onClick={install}>
            {t('install.button')}
          </button>
        ) : null}
        <button type="button" className="rec-button is-quiet" onClick={dismiss}>
          {t('install.notNow')}
        </button>
      </div>
    </section>
  );
}
