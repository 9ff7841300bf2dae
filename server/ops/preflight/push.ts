/**
 * The preflight's push line: when push is on, the keys every server signs with are there
 * and readable, with the subject push services reach the operator at and the hosts pushes may go to.
 * A bad setting (half a key pair, a subject that is no mailto:/https:, PUSH_HOSTS that do not parse)
 * already fails the settings line; this one finds keys kept under another SESSION_SECRET, and a
 * subject naming localhost on a public site (Apple answers every push 403 BadJwtToken).
 */
import { isLocalHost, subjectNamesLocalhost } from '../../config/push.js';
import { keptVapidKeys } from '../../push/keys.js';
import { fail, ok, type PreflightCheck } from './finding.js';

export const pushCheck: PreflightCheck = {
  name: 'push',
  async run({ config, repository }) {
    const push = config.push;
    if (!push.enabled) return ok('push is off (PUSH=off): friends are not told when their note is heard.');
    if (subjectNamesLocalhost(push.subject) && !isLocalHost(new URL(config.publicUrl).hostname)) {
      return fail(
        `VAPID_SUBJECT '${push.subject}' names localhost while PUBLIC_URL is public: Apple's push service answers every push 403 BadJwtToken, so no iPhone is told.`,
        'set VAPID_SUBJECT to a mailto: address or https: URL of yours (mailto:ops@your-domain).',
      );
    }
    const to = `signed for ${push.subject}, sent only to ${push.hosts.length} host${push.hosts.length === 1 ? '' : 's'} of PUSH_HOSTS`;
    if (push.vapidKeys) return ok(`push on with the VAPID keys of the environment, ${to}.`);
    const kept = await keptVapidKeys((await repository()).push, config.auth.sessionSecret);
    if (kept === 'unreadable') {
      return fail(
        'the VAPID key pair kept in the database was sealed under another SESSION_SECRET: push would be off on this server.',
        'give this server the SESSION_SECRET the others have, or set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (npx web-push generate-vapid-keys) on every server.',
      );
    }
    if (kept === 'none') return ok(`push on: the first server to start makes the VAPID key pair and keeps it in the database for all, ${to}.`);
    return ok(`push on with the VAPID key pair kept in the database, ${to}.`);
  },
};
