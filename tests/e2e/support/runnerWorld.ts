/**
 * A server whose runners sign in with a stand-in for Apple (its JWKS served by the test), and the
 * runner's side of a scenario: an entry with its recorder link, a converted note, a share.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from '@playwright/test';
import { startFakeApple } from '../../../stand-ins/fakeApple';
import { putNote } from '../../../stand-ins/friend';
import { enterRace, runnerClient, signIn as signInRunner, type RunnerClient } from '../../../kit/runnerApi';
import { addUpcomingRace, UPCOMING_RACE } from '../../../kit/races';
import { startServer, type RunningServer } from '../../../kit/server';
import { speechWav } from '../../../stand-ins/speech';

export interface RunnerWorld {
  server: RunningServer;
  /** The runner API's typed client, as the session with this access token when given. */
  client(accessToken?: string): RunnerClient;
  /** A runner signed in (a new Apple account each time): their access token. */
  signIn(): Promise<string>;
  /** A runner with one entry and one converted note at mile 13 from Sam, sent through the recorder API. */
  runnerWithNote(): Promise<{ session: string; entry: { id: string; link: { token: string; url: string } }; noteId: string }>;
  stop(): Promise<void>;
}

/** `env`: more of the server's environment (a push service to trust, say). */
export async function startRunnerWorld(env: NodeJS.ProcessEnv = {}): Promise<RunnerWorld> {
  const apple = await startFakeApple();
  const server = await startServer({
    APPLE_JWKS_URL: apple.jwksUrl,
    APPLE_AUDIENCE: apple.audience,
    SESSION_SECRET: 'e2e-secret-that-is-long-enough-0123456789',
    ...env,
  });
  await addUpcomingRace(server);
  const webm = path.join(os.tmpdir(), `milenotes-runner-world-${process.pid}.webm`);
  await promisify(execFile)('ffmpeg', ['-y', '-loglevel', 'error', '-i', await speechWav(), '-t', '4', '-c:a', 'libopus', '-b:a', '32k', webm]);
  const speech = await readFile(webm);
  const client: RunnerWorld['client'] = (accessToken) => runnerClient(server.url, accessToken);

  const signIn = () => signInRunner(server.url, apple);

  return {
    server,
    client,
    signIn,
    async runnerWithNote() {
      const session = await signIn();
      const entry = await enterRace(client(session), UPCOMING_RACE, 'Alex');
      const noteId = randomUUID();
      const put = await putNote(server.url, entry.link.token, { id: noteId, contentType: 'audio/webm;codecs=opus', audio: speech }, 'mi-13', 'Sam');
      expect(put.status).toBe(201);
      await expect
        .poll(async () => (await client(session).GET('/api/entries/{id}/notes', { params: { path: { id: entry.id } } })).data?.markers[0]?.notes?.[0]?.status, {
          timeout: 30_000,
        })
        .toBe('converted');
      return { session, entry, noteId };
    },
    async stop() {
      await server.stop();
      await apple.close();
    },
  };
}
