/**
 * The runner's app as the tests, the bench and the demo speak to the server: JSON calls to the
 * runner API with an optional bearer token, and the sign-in with an identity token (the stand-in
 * for Apple's, stand-ins/fakeApple.ts). The app itself, on the generated client, is reference-app/.
 */
import { randomUUID } from 'node:crypto';
import { FAKE_APPLE_NONCE, type FakeApple } from '../stand-ins/fakeApple.js';

export async function runnerApi(baseUrl: string, method: string, url: string, accessToken?: string, body?: object) {
  const res = await fetch(`${baseUrl}${url}`, {
    method,
    headers: { ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** POST /api/auth/apple with this identity token; answers the session's access token, or throws with the server's answer. */
export async function signInWith(baseUrl: string, identityToken: string, nonce = FAKE_APPLE_NONCE): Promise<string> {
  const answer = await runnerApi(baseUrl, 'POST', '/api/auth/apple', undefined, { identityToken, nonce });
  if (answer.status !== 200) throw new Error(`sign in answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  return (answer.json as { accessToken: string }).accessToken;
}

/** A runner signs in with the stand-in for Apple, as a new Apple account unless `sub` is given; answers the access token. */
export async function signIn(baseUrl: string, apple: Pick<FakeApple, 'token'>, sub = randomUUID()): Promise<string> {
  return signInWith(baseUrl, await apple.token({ sub }));
}
