/**
 * What a queued push says, made when it is sent (so a runner renamed meanwhile is named as now):
 * the runner, the note or the marker, the phone's language and the recorder a tap opens. Never
 * where the runner is. Each kind has its own life: a heard note stays news for hours, "about ten
 * minutes away" is stale once the runner is there.
 */
import { createHash } from 'node:crypto';
import { ALERT_LEAD_MINUTES, PUSH_LANGUAGES, type PushLang, type PushNotice } from '../../src/shared/push.js';
import type { ClaimedPush } from '../db/push-queue-store.js';
import type { PushKind } from '../db/push-store.js';
import type { TokenSeal } from '../devices/sealed.js';
import type { PushMessage } from './send.js';

/** How long a push is worth sending, and waits at the push service for a phone that is off (s). */
export const PUSH_TTL_SECONDS: Record<PushKind, number> = { heard: 6 * 3600, soon: ALERT_LEAD_MINUTES * 60 };
const URGENCY: Record<PushKind, PushMessage['urgency']> = { heard: 'normal', soon: 'high' };

const langOf = (lang: string): PushLang => ((PUSH_LANGUAGES as readonly string[]).includes(lang) ? (lang as PushLang) : 'en');

/** The notice for a claimed push; `/` when the link's sealed token does not open (another SESSION_SECRET). */
export function noticeOf(push: ClaimedPush, seal: TokenSeal): PushNotice {
  const token = seal.open(push.subscription.linkId, push.subscription.sealedToken);
  return {
    v: 1,
    kind: push.kind,
    runner: push.runnerName,
    marker: push.marker,
    ...(push.kind === 'heard' && { note: push.ref }),
    url: token ? `/r/${token}` : '/',
    lang: langOf(push.subscription.lang),
  };
}

/** The push on the wire: its Topic is the delivery's, so a push sent twice (a lease lost mid-send) replaces itself at the service. */
export function messageOf(push: ClaimedPush, notice: PushNotice): PushMessage {
  return {
    payload: JSON.stringify(notice),
    ttlSeconds: PUSH_TTL_SECONDS[push.kind],
    urgency: URGENCY[push.kind],
    topic: createHash('sha256').update(push.id).digest('base64url').slice(0, 32),
  };
}
