/**
 * The runner's app as the tests, the bench and the demo speak to the server: the generated, typed
 * client of the runner API (reference-app/api.d.ts, the one the reference app uses) with an optional
 * bearer token, and the sign-in with an identity token (the stand-in for Apple's,
 * stand-ins/fakeApple.ts). The app itself is reference-app/.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../reference-app/api.js';
import { FAKE_APPLE_NONCE, type FakeApple } from '../stand-ins/fakeApple.js';

export type RunnerClient = Client<paths>;

/** The runner API at `baseUrl`, as the session with this access token when one is given. */
export function runnerClient(baseUrl: string, accessToken?: string): RunnerClient {
  return createClient<paths>({ baseUrl, headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {} });
}

/** POST /api/auth/apple with this identity token; answers the session's access token, or throws with the server's answer. */
export async function signInWith(baseUrl: string, identityToken: string, nonce = FAKE_APPLE_NONCE): Promise<string> {
  const { data, error, response } = await runnerClient(baseUrl).POST('/api/auth/apple', { body: { identityToken, nonce } });
  if (!data) throw new Error(`sign in answered ${response.status}: ${JSON.stringify(error)}`);
  return data.accessToken;
}

/** A runner signs in with the stand-in for Apple, as a new Apple account unless `sub` is given; answers the access token. */
export async function signIn(baseUrl: string, apple: Pick<FakeApple, 'token'>, sub = randomUUID()): Promise<string> {
  return signInWith(baseUrl, await apple.token({ sub }));
}

/** POST /api/entries: the runner enters a race; answers the entry with its recorder link, or throws with the server's answer. */
export async function enterRace(client: RunnerClient, raceId: string, displayName: string) {
  const { data, error, response } = await client.POST('/api/entries', { body: { raceId, displayName } });
  if (!data?.link) throw new Error(`entering ${raceId} answered ${response.status}: ${JSON.stringify(error ?? data)}`);
  return { ...data, link: data.link };
}
