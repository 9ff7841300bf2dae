/** A test app with Sign in with Apple pointed at a JWKS served in the test, and helpers to act as a runner. */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Response as InjectResponse } from 'light-my-request';
import { expect } from 'vitest';
import type { Session } from '../../../contract/runnerApi.js';
import { convertedKey } from '../../../server/storage/keys.js';
import { FAKE_APPLE_NONCE, startFakeApple, type FakeApple } from '../../../stand-ins/fakeApple.js';
import { apiClient, type ApiClient } from '../openapi/client.js';
import type { BackendKind } from '../support/backends.js';
import { startTestApp, type TestApp, type TestAppParts } from '../support/app.js';
import { addUpcomingRaces, UPCOMING } from '../support/races.js';
import { fakeWebm, putNote } from '../support/uploads.js';

export const PUBLIC_URL = 'https://milenotes.test';

export interface RunnerTestApp extends TestApp {
  apple: FakeApple;
  signIn(sub?: string): Promise<Session>;
  /** A runner's entry with a live link, as POST /api/entries makes it. */
  enter(session: Session, raceId?: string, displayName?: string): Promise<{ id: string; token: string }>;
  /** Sends a note through the recorder API and, unless told otherwise, stands in for the conversion worker. */
  sendNote(token: string, opts?: { marker?: string; from?: string; convert?: boolean }): Promise<string>;
  call(session: Session | undefined, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: object): Promise<InjectResponse>;
  /** The generated client (openapi-fetch on reference-app/api.d.ts), signed in as `session` when given. */
  api(session?: Session): ApiClient;
}

export async function startRunnerApp(kind: BackendKind, env: NodeJS.ProcessEnv = {}, parts?: TestAppParts): Promise<RunnerTestApp> {
  const apple = await startFakeApple();
  const t = await startTestApp(
    kind,
    {
      APPLE_JWKS_URL: apple.jwksUrl,
      APPLE_AUDIENCE: apple.audience,
      SESSION_SECRET: 'test-secret-that-is-long-enough-0123456789',
      PUBLIC_URL,
      ...env,
    },
    parts,
  );
  await addUpcomingRaces(t.app.repo);
  const call: RunnerTestApp['call'] = (session, method, url, body) =>
    t.app.inject({
      method,
      url,
      headers: session ? { authorization: `Bearer ${session.accessToken}` } : {},
      ...(body ? { payload: body } : {}),
    });

  return {
    ...t,
    apple,
    call,
    api: (session) => apiClient(t.app, session?.accessToken),
    async close() {
      await t.close();
      await apple.close();
    },
    async signIn(sub = `apple-${randomUUID()}`) {
      const { data, error, response } = await apiClient(t.app).POST('/api/auth/apple', {
        body: { identityToken: await apple.token({ sub }), nonce: FAKE_APPLE_NONCE },
      });
      expect(response.status, JSON.stringify(error)).toBe(200);
      return data!;
    },
    async enter(session, raceId: string = UPCOMING.chicago.id, displayName = 'Alex') {
      const { data, error, response } = await apiClient(t.app, session.accessToken).POST('/api/entries', { body: { raceId, displayName } });
      expect(response.status, JSON.stringify(error)).toBe(201);
      return { id: data!.id, token: data!.link!.token };
    },
    async sendNote(token, opts = {}) {
      const noteId = randomUUID();
      const res = await putNote(t.app, { token, noteId, body: fakeWebm(), marker: opts.marker ?? 'mi-13', from: opts.from ?? 'Sam' });
      expect(res.statusCode, res.body).toBe(201);
      if (opts.convert !== false) {
        const key = convertedKey(noteId);
        const audio = Buffer.from(`m4a bytes of ${noteId}`);
        await t.app.blobs.put(key, Readable.from([audio]), { maxBytes: 1e6, contentType: 'audio/mp4' });
        await t.app.repo.jobs.markConverted(noteId, key, 4200);
      }
      return noteId;
    },
  };
}
