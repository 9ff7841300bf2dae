import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RUNNER_NAME_LENGTH } from '../../../contract/limits.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin, runAdminProcess } from '../support/cli.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fakeWebm, putNote, sha256Hex } from '../support/uploads.js';
import { linkIdOf, newToken } from '../../../server/links.js';

describe.each(BACKENDS)('npm run admin on %s', (kind) => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    t = await startTestApp(kind);
    env = { ...t.backend.env, PORT: '8080', PUBLIC_URL: '' };
  });
  afterAll(() => t.close());

  it('should create a link whose token has at least 128 random bits and print it as one JSON line', async () => {
    const { code, stdout } = await runAdminProcess(env, 'create-link', '--runner', 'Pat Lee', '--race', 'chicago-2025');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const { token, url } = JSON.parse(stdout);
    expect(token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(url).toBe(`http://localhost:8080/r/${token}`);
    const link = await t.app.inject({ url: `/api/r/${token}` });
    expect(link.json().runner.displayName).toBe('Pat Lee');
  });

  it('should accept a runner name of exactly the longest length the runner API accepts', async () => {
    const name = 'P'.repeat(MAX_RUNNER_NAME_LENGTH);
    const { code, stdout } = await runAdmin(env, 'create-link', '--runner', name, '--race', 'chicago-2025');
    expect(code).toBe(0);
    const link = await t.app.inject({ url: `/api/r/${JSON.parse(stdout).token}` });
    expect(link.json().runner.displayName).toBe(name);
  });

  it('should store the runner name as the runner API does (no bidi controls, NFC) and refuse one with nothing visible', async () => {
    const made = await runAdmin(env, 'create-link', '--runner', '\u202EPa\u0301t\u200F', '--race', 'chicago-2025');
    expect(made.code).toBe(0);
    const link = await t.app.inject({ url: `/api/r/${JSON.parse(made.stdout).token}` });
    expect(link.json().runner.displayName).toBe('P\u00e1t');
    const invisible = await runAdmin(env, 'create-link', '--runner', '\u202E\u2066', '--race', 'chicago-2025');
    expect(invisible.code).not.toBe(0);
    expect(invisible.stderr).toMatch(/no visible characters/);
  });

  it('should list the notes of a link with their status, then revoke the link', async () => {
    const { stdout } = await runAdmin(env, 'create-link', '--runner', 'Kim', '--race', 'berlin-2025');
    const { token } = JSON.parse(stdout);
    const body = fakeWebm(4321);
    const noteId = randomUUID();
    expect((await putNote(t.app, { token, body, noteId, marker: 'km-10', from: 'Mum' })).statusCode).toBe(201);

    const listed = await runAdmin(env, 'list-notes', '--token', token);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        id: noteId,
        marker: 'km-10',
        from: 'Mum',
        contentType: 'audio/webm;codecs=opus',
        bytes: 4321,
        sha256: sha256Hex(body),
        durationMs: null,
        status: 'received',
        receivedAt: expect.any(String),
      },
    ]);

    expect((await runAdmin(env, 'revoke-link', '--token', token)).code).toBe(0);
    expect((await t.app.inject({ url: `/api/r/${token}` })).statusCode).toBe(404);
  });

  it('should take a token that starts with a dash, as one in 64 do, written either way', async () => {
    const token = `-${newToken().slice(1)}`;
    await t.app.repo.links.create({ linkId: linkIdOf(token), runnerName: 'Dee', raceId: 'berlin-2025', createdAt: new Date().toISOString() });

    const listed = await runAdmin(env, 'list-notes', '--token', token);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
    const revoked = await runAdmin(env, 'revoke-link', `--token=${token}`);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await t.app.inject({ url: `/api/r/${token}` })).statusCode).toBe(404);
  });

  it.each([
    [['create-link', '--runner', 'Pat'], /Missing --race/],
    [['create-link', '--runner', '--race', 'chicago-2025'], /Missing --runner\./],
    [['list-notes', '--token'], /Missing --token\./],
    [['create-link', '--runner', 'Pat', '--race', 'mars-2025'], /Unknown race 'mars-2025'/],
    // The same limit as a runner's name in the runner API (MAX_RUNNER_NAME_LENGTH).
    [['create-link', '--runner', 'P'.repeat(MAX_RUNNER_NAME_LENGTH + 1), '--race', 'chicago-2025'], /too long \(60 characters at most\)/],
    [['list-notes', '--token', 'not-a-real-token'], /No link has this token/],
    [['revoke-link'], /Missing --token/],
    [['launch-rockets'], /Unknown command 'launch-rockets'/],
    [[], /Usage: npm run admin/],
  ])('should explain bad arguments %j on stderr and exit with code 2', async (args, message) => {
    const result = await runAdmin(env, ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('should exit with code 2 and the usage as a process too, and with 1 and the reason when the database cannot be reached', async () => {
    const unknown = await runAdminProcess(env, 'launch-rockets');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/Unknown command 'launch-rockets'[\s\S]*Usage: npm run admin/);
    const unreachable = await runAdminProcess({ ...env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, 'list-races');
    expect(unreachable).toMatchObject({ code: 1, stdout: '' });
    expect(unreachable.stderr).toMatch(/^admin failed: .+/);
  });
});
