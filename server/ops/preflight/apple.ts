/**
 * The preflight's Sign in with Apple line: APPLE_AUDIENCE is set (left at its placeholder, every
 * runner's sign-in is refused: Apple's tokens name the app's real bundle id), and the keys at
 * APPLE_JWKS_URL can be fetched from here and read as a key set.
 */
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { fail, ok, reasonOf, type PreflightCheck } from './finding.js';

export const appleCheck: PreflightCheck = {
  name: 'Apple sign-in',
  async run({ env, config, appleKeys }) {
    const problems: string[] = [];
    const fixes: string[] = [];
    const url = config.auth.appleJwksUrl;
    if (!env.APPLE_AUDIENCE) {
      problems.push(`APPLE_AUDIENCE is not set, so sign-ins are checked against the placeholder '${config.auth.appleAudience}' and every runner's is refused`);
      fixes.push("set APPLE_AUDIENCE to the iPhone app's bundle id (Xcode: the target's Signing & Capabilities)");
    }
    let keys = 0;
    try {
      const answer = await appleKeys();
      if (answer.status !== 200) throw new Error(`it answered HTTP ${answer.status}`);
      const set = JSON.parse(answer.body) as JSONWebKeySet;
      createLocalJWKSet(set); // throws when it is not a key set
      keys = set.keys.length;
      if (keys === 0) throw new Error('it holds no keys');
    } catch (err) {
      problems.push(`Apple's sign-in keys could not be fetched from ${url}: ${reasonOf(err)}`);
      const host = URL.canParse(url) ? new URL(url).host : url;
      fixes.push(`let this server reach ${host} over HTTPS (firewall, proxy, DNS); APPLE_JWKS_URL, when set, must be Apple's keys URL`);
    }
    if (problems.length > 0) return fail(`${problems.join('; ')}.`, `${fixes.join('; ')}.`);
    return ok(`audience ${config.auth.appleAudience}; ${keys} signing key${keys === 1 ? '' : 's'} fetched from ${url}.`);
  },
};
