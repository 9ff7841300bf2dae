/**
 * The recorder's two push controls: "Tell me when Alex hears it" once a note is sent, and
 * "Tell me when Alex is about 10 minutes from Mile 20" for a marker the runner is expected at later
 * than that. Each shows only when push is on and this phone can be told, or (iPhone outside the Home
 * Screen app) can learn how; the state and the taps are ./usePush.ts's.
 */
import '../laterWords.js';
import type { ReactNode } from 'react';
import { ALERT_LEAD_MINUTES } from '../../../contract/push.js';
import { markerName } from '../../i18n/index.js';
import { useT } from '../../i18n/useLanguage.js';
import type { PushControl, PushControlKind } from './usePush.js';

/** The hint and the problem that belong under one control. */
function Notes({ push, kind }: { push: PushControl; kind: PushControlKind }) {
  const t = useT();
  return (
    <>
      {push.installHint === kind ? (
        <p className="rec-push-hint" data-testid="push-install-hint">
          {t('push.installFirst')}
        </p>
      ) : null}
      {push.problem?.on === kind ? (
        <p className="rec-alert" role="alert">
          {push.problem.text}
        </p>
      ) : null}
    </>
  );
}

const shown = (push: PushControl) => push.state !== undefined && push.support !== 'unsupported';

function Control({
  testId,
  said,
  button,
  quiet,
  push,
  kind,
  onTap,
}: {
  testId: string;
  said: ReactNode;
  button: string;
  quiet: boolean;
  push: PushControl;
  kind: PushControlKind;
  onTap: () => void;
}) {
  return (
    <div className="rec-push" data-testid={testId}>
      {said ? <p className="rec-push-on">{said}</p> : null}
      <button type="button" className={`rec-button${quiet ? ' is-quiet' : ''}`} disabled={push.busy} onClick={onTap}>
        {button}
      </button>
      <Notes push={push} kind={kind} />
    </div>
  );
}

/** Under the person's notes: be told when the runner hears them. */
export function HeardPush({ runner, push }: { runner: string; push: PushControl }) {
  const t = useT();
  if (!shown(push)) return null;
  const on = push.state!.heard;
  return (
    <section className="rec-card" aria-label={t('push.heard.ask', { runner })}>
      <Control
        testId="push-heard"
        push={push}
        kind="heard"
        quiet={on}
        onTap={() => push.setHeard(!on)}
        said={on ? t('push.heard.on', { runner }) : null}
        button={on ? t('push.turnOff') : t('push.heard.ask', { runner })}
      />
    </section>
  );
}

/** Under the marker picker: be told when the runner is about ten minutes from the chosen marker, while there is time. */
export function MarkerAlert({
  runner,
  marker,
  label,
  expectedAt,
  now,
  push,
}: {
  runner: string;
  marker: string;
  label: string | undefined;
  expectedAt: number | undefined;
  now: number;
  push: PushControl;
}) {
  const t = useT();
  if (!shown(push) || !marker) return null;
  const asked = push.state!.alerts.some((a) => a.marker === marker);
  const inTime = expectedAt !== undefined && expectedAt - now > ALERT_LEAD_MINUTES * 60_000;
  if (!asked && !inTime) return null;
  const words = { runner, marker: markerName(marker, label), minutes: ALERT_LEAD_MINUTES };
  return (
    <Control
      testId="push-alert"
      push={push}
      kind="alert"
      quiet={asked}
      onTap={() => push.setAlert(marker, !asked)}
      said={asked ? t('push.alert.on', words) : null}
      button={asked ? t('push.alert.cancel') : t('push.alert.ask', words)}
    />
  );
}
