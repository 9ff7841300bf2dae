/**
 * What a queued push says, made when it is sent (so a runner renamed meanwhile is named as now):
 * Declarative Web Push JSON (contract/push.ts) that Safari 18.4+ shows by itself and the service
 * worker shows elsewhere, with the words in the phone's language, the recorder a tap opens and the
 * badge. Never where the runner is. Each kind has its own life: a heard note stays news for hours,
 * "about ten minutes away" is stale once the runner is there.
 */
import { createHash } from 'node:crypto';
import { isLang, type Lang } from '../../contract/languages.js';
import { markerPlace } from '../../contract/markers.js';
import { ALERT_LEAD_MINUTES, DECLARATIVE_PUSH, type DeclarativePush } from '../../contract/push.js';
import { fill, NOTICES } from '../../contract/words.js';
import { recorderPath } from '../../contract/paths.js';
import type { ClaimedPush } from '../db/push-queue-store.js';
import type { PushKind } from '../db/types.js';
import type { TokenSeal } from '../devices/sealed.js';
import type { PushMessage } from './send.js';

/** How long a push is worth sending, and waits at the push service for a phone that is off (s). */
export const PUSH_TTL_SECONDS: Record<PushKind, number> = { heard: 6 * 3600, soon: ALERT_LEAD_MINUTES * 60 };
const URGENCY: Record<PushKind, PushMessage['urgency']> = { heard: 'normal', soon: 'high' };
/** Names are the runner's own: one too long for a notice's line is cut, so the push stays small. */
const MAX_RUNNER_CHARS = 80;

const langOf = (lang: string): Lang => (isLang(lang) ? lang : 'en');

/** The notice's one line ("Alex heard your note at Mile 20"), in its language; the runner's name for a marker we cannot word. */
export function noticeTitle(kind: PushKind, runner: string, marker: string, lang: Lang): string {
  const name = [...runner].length > MAX_RUNNER_CHARS ? `${[...runner].slice(0, MAX_RUNNER_CHARS - 1).join('')}…` : runner;
  const place = markerPlace(marker);
  if (!place) return name || 'MileNotes';
  return fill(NOTICES[lang][`notice.${kind}.${place.unit}`], { runner: name, n: place.unit === 'finish' ? '' : place.n, minutes: ALERT_LEAD_MINUTES });
}

/**
 * The push for a claimed delivery. `origin` is PUBLIC_URL's: `navigate` is the link's recorder on
 * it, or the home page when the link's sealed token does not open (another SESSION_SECRET).
 */
export function noticeOf(push: ClaimedPush, seal: TokenSeal, origin: string): DeclarativePush {
  const token = seal.open(push.subscription.linkId, push.subscription.sealedToken);
  const lang = langOf(push.subscription.lang);
  return {
    web_push: DECLARATIVE_PUSH,
    notification: {
      title: noticeTitle(push.kind, push.runnerName, push.marker, lang),
      navigate: new URL(token ? recorderPath(token) : '/', origin).href,
      lang,
      dir: 'auto',
      tag: push.kind === 'heard' ? `heard:${push.ref}` : `soon:${push.subscription.id}:${push.marker}`,
      silent: false,
    },
    // Something new on this runner: the icon says so until the recorder is opened.
    app_badge: 1,
  };
}

/** The push on the wire: its Topic is the delivery's, so a push sent twice (a lease lost mid-send) replaces itself at the service. */
export function messageOf(push: ClaimedPush, notice: DeclarativePush): PushMessage {
  return {
    payload: JSON.stringify(notice),
    ttlSeconds: PUSH_TTL_SECONDS[push.kind],
    urgency: URGENCY[push.kind],
    topic: createHash('sha256').update(push.id).digest('base64url').slice(0, 32),
  };
}
