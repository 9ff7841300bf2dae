/**
 * npm run admin for people and for scripts: at a terminal a result reads as lines or a table; piped,
 * or with --json, it is the one line of JSON scripts have always read. `help` names every command.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../../server/cli/run-admin.js';
import { HELPED, usageOf } from '../../../server/cli/usage.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { runAdmin, runAdminAtTerminal, runAdminProcess, runAdminProcessAtTerminal } from '../support/cli.js';
import { addUpcomingRaces, UPCOMING } from '../support/races.js';
import { fakeWebm, putNote } from '../support/uploads.js';

describe('npm run admin at a terminal and piped', () => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  const race = UPCOMING.nyc;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await addUpcomingRaces(t.app.repo);
    env = { ...t.backend.env, PUBLIC_URL: 'https://milenotes.test' };
  });
  afterAll(() => t.close());

  it('help should list every command, one line each, and help <command> say its options', async () => {
    expect([...HELPED].sort()).toEqual([...COMMAND_NAMES].sort());
    const help = await runAdminAtTerminal(env, 'help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const name of COMMAND_NAMES) {
      expect(
        help.stdout.split('\n').filter((line) => new RegExp(`^  ${name} +\\S`).test(line)),
        name,
      ).toHaveLength(1);
      const one = await runAdmin(env, 'help', name);
      expect(one.code).toBe(0);
      expect(one.stdout).toMatch(new RegExp(`^Usage: npm run admin -- ${name}\\b.*\\n\\n[A-Z].+\\.`));
    }
    expect((await runAdmin(env, 'help', 'launch-rockets')).code).toBe(2);
  });

  it("should know every command and option the operator's runbook gives", () => {
    const runbook = readFileSync(path.join(import.meta.dirname, '../../../docs/runbook.md'), 'utf8').replace(/\\\n\s*/g, ' ');
    const given = [...runbook.matchAll(/npm run admin -- ([a-z-]+)([^`\n]*)/g)];
    expect(given.length).toBeGreaterThan(10);
    for (const [line, name, rest] of given.filter(([, name]) => name !== 'help')) {
      expect(COMMAND_NAMES, line).toContain(name);
      for (const [option] of rest!.matchAll(/--[a-z-]+/g)) expect(usageOf(name!), line).toContain(option);
    }
  });

  it('should print, piped, the same one line of JSON as with --json at a terminal', async () => {
    const piped = await runAdminProcess(env, 'list-races');
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.split('\n')).toHaveLength(2);
    const races = JSON.parse(piped.stdout);
    expect(races).toContainEqual(expect.objectContaining({ id: race.id, name: race.name, when: 'upcoming', hasCourse: false }));
    expect((await runAdminAtTerminal(env, 'list-races', '--json')).stdout).toBe(piped.stdout);
    expect((await runAdminProcessAtTerminal(env, 'list-races', '--json')).stdout).toBe(piped.stdout);
  });

  it('should show the races as a table at a real terminal, not JSON', async () => {
    const run = await runAdminProcessAtTerminal(env, 'list-races');
    expect(run.code, run.stdout).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +STARTS +WHEN +UNITS +COURSE$/);
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${race.id} +${race.name} +${race.date} ${race.start} ${race.timezone} +upcoming +mi +no$`)),
    );
    expect(run.stdout).not.toMatch(/[{[]"/);
  });

  it('should give a new link at a terminal on a line of its own, saying it is shown once, and the link should open', async () => {
    const run = await runAdminProcessAtTerminal(env, 'create-link', '--runner', 'Tess', '--race', race.id);
    expect(run.code, run.stdout).toBe(0);
    const url = /^ {2}(https:\/\/milenotes\.test\/r\/[A-Za-z0-9_-]{32})$/m.exec(run.stdout)?.[1];
    expect(url, run.stdout).toBeDefined();
    expect(run.stdout).toContain('This is the only time it is shown');
    expect((await t.app.inject({ url: `/api/r/${url!.split('/').pop()}` })).json().runner.displayName).toBe('Tess');
  });

  it("should show a link's notes, the catalogue's history and a storage check as a person reads them", async () => {
    const { token } = JSON.parse((await runAdmin(env, 'create-link', '--runner', 'Uma', '--race', race.id)).stdout);
    expect((await putNote(t.app, { token, body: fakeWebm(2000), noteId: randomUUID(), marker: 'mi-20', from: 'Grandpa' })).statusCode).toBe(201);
    const notes = await runAdminAtTerminal(env, 'list-notes', '--token', token);
    expect(notes.stdout).toMatch(/^RECEIVED +MARKER +FROM +LENGTH +STATUS\n\d{4}-\d\d-\d\d \d\d:\d\d UTC +mi-20 +Grandpa +- +received\n$/);

    expect((await runAdmin(env, 'edit-race', '--id', race.id, '--start', '09:40')).code).toBe(0);
    const history = await runAdminAtTerminal(env, 'race-history', '--id', race.id);
    expect(history.stdout).toMatch(new RegExp(`^AT +BY +RACE +CHANGE\\n.+ ${race.id} +start 09:10 -> 09:40\\n$`));

    const storage = await runAdminAtTerminal(env, 'verify-storage');
    expect(storage.stdout).toMatch(/^healthy: yes\nnotes: 1\n/m);
    expect(storage.stdout).toContain('missing: none');
    expect((await runAdminAtTerminal(env, 'revoke-link', '--token', token)).stdout).toBe(
      'The link is stopped: its recorder no longer opens. Its notes stay.\n',
    );
  });
});
