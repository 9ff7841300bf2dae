/**
 * The operator's link commands: list-links finds a race's and a runner's links (name, race, notes,
 * live or revoked, made in the app or here), and replace-link gives a runner who lost their link a
 * new one in its place. A link's address is not kept (only its hash), so it is never shown again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIdOf } from '../../../server/links.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin, runAdminAtTerminal } from '../support/cli.js';
import { UPCOMING } from '../support/races.js';

interface Listed {
  linkId: string;
  runner: string;
  race: string;
  raceName: string;
  createdAt: string;
  revoked: boolean;
  revokedAt: string | null;
  notes: number;
  madeBy: 'app' | 'admin';
}

describe.each(BACKENDS)('link commands of npm run admin on %s', (kind) => {
  let t: RunnerTestApp;
  let env: NodeJS.ProcessEnv;
  const race = UPCOMING.chicago.id;
  const other = UPCOMING.berlin.id;
  const admin = async (...args: string[]) => {
    const run = await runAdmin(env, ...args);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  };
  const opens = async (token: string) => (await t.app.inject({ url: `/api/r/${token}` })).statusCode;

  beforeAll(async () => {
    t = await startRunnerApp(kind);
    env = { ...t.backend.env, PUBLIC_URL: 'https://milenotes.test' };
  });
  afterAll(() => t.close());

  it("should list a race's links and a runner's, with their notes, who made them and whether they still open", async () => {
    const jo = (await admin('create-link', '--runner', 'Jo Ellis', '--race', race)).token as string;
    const joOther = (await admin('create-link', '--runner', 'Jo Ellis', '--race', other)).token as string;
    const entry = await t.enter(await t.signIn(), race, 'Robin Ng');
    await t.sendNote(jo, { from: 'Mum' });
    await t.sendNote(jo, { from: 'Dad' });
    await t.sendNote(entry.token, { from: 'Sam' });
    await admin('revoke-link', '--token', joOther);

    const ofRace: Listed[] = await admin('list-links', '--race', race);
    expect(ofRace.filter((l) => ['Jo Ellis', 'Robin Ng'].includes(l.runner))).toEqual([
      {
        linkId: linkIdOf(jo),
        runner: 'Jo Ellis',
        race,
        raceName: UPCOMING.chicago.name,
        createdAt: expect.any(String),
        revoked: false,
        revokedAt: null,
        notes: 2,
        madeBy: 'admin',
      },
      expect.objectContaining({ linkId: linkIdOf(entry.token), runner: 'Robin Ng', notes: 1, madeBy: 'app', revoked: false }),
    ]);
    expect(ofRace.every((l) => l.race === race)).toBe(true);

    // Any part of the name, in any case, over every race (the earliest race first).
    const ofRunner: Listed[] = await admin('list-links', '--runner', 'jo ell');
    expect(ofRunner.map((l) => [l.race, l.revoked, l.notes])).toEqual([
      [other, true, 0],
      [race, false, 2],
    ]);
    expect(ofRunner[0]!.revokedAt).toEqual(expect.any(String));
    expect(await admin('list-links', '--race', other, '--runner', 'ROBIN')).toEqual([]);
  });

  it('should show a table at a terminal, saying why a link cannot be shown again and how to replace it', async () => {
    await admin('create-link', '--runner', 'Kit Table', '--race', race);
    const run = await runAdminAtTerminal(env, 'list-links', '--runner', 'Kit Table');
    expect(run.code, run.stderr).toBe(0);
    const [header, row, ...rest] = run.stdout.split('\n');
    expect(header).toMatch(/^LINK +RUNNER +RACE +MADE +BY +NOTES +STATE$/);
    expect(row).toMatch(new RegExp(`^[0-9a-f]{12} +Kit Table +${race} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC +admin +0 +live$`));
    expect(rest.join('\n')).toContain('cannot be shown again: the server keeps only a hash of it');
    expect(rest.join('\n')).toContain('npm run admin -- replace-link --link <LINK>');
  });

  it('should replace a lost link by the id list-links shows: the old one stops, the new one opens for the same runner, the notes stay', async () => {
    const lost = (await admin('create-link', '--runner', 'Lee Lost', '--race', race)).token as string;
    await t.sendNote(lost, { from: 'Ann' });
    const [listed] = (await admin('list-links', '--runner', 'Lee Lost')) as Listed[];

    const replaced = await runAdmin(env, 'replace-link', '--link', listed!.linkId.slice(0, 10));
    expect(replaced.code, replaced.stderr).toBe(0);
    const made = JSON.parse(replaced.stdout);
    expect(made).toEqual({ token: expect.any(String), url: `https://milenotes.test/r/${made.token}`, runner: 'Lee Lost', race, replaced: listed!.linkId });
    expect(replaced.stderr).toContain(`Replaced Lee Lost's link for ${UPCOMING.chicago.name}`);
    expect(await opens(lost)).toBe(404);
    expect(await opens(made.token)).toBe(200);
    expect((await t.app.inject({ url: `/api/r/${made.token}` })).json().runner.displayName).toBe('Lee Lost');

    const after: Listed[] = await admin('list-links', '--runner', 'Lee Lost');
    expect(after.map((l) => [l.linkId, l.revoked, l.notes])).toEqual([
      [listed!.linkId, true, 1],
      [linkIdOf(made.token), false, 0],
    ]);
    // Stopped and replaced: replacing it again would stop the runner's new link.
    const again = await runAdmin(env, 'replace-link', '--link', listed!.linkId);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`Lee Lost has a live link for ${UPCOMING.chicago.name} (${linkIdOf(made.token).slice(0, 12)}): replace that one`);
    expect(await opens(made.token)).toBe(200);
  });

  it("should replace a link made in the runner's app as the app's own new link does", async () => {
    const session = await t.signIn();
    const entry = await t.enter(session, race, 'Ari App');
    const made = await admin('replace-link', '--token', entry.token);
    expect(await opens(entry.token)).toBe(404);
    expect(await opens(made.token)).toBe(200);
    // The app's list still says its friends have a working link.
    const { entries } = (await t.call(session, 'GET', '/api/entries')).json() as { entries: Array<{ id: string; linkActive: boolean }> };
    expect(entries.find((e) => e.id === entry.id)?.linkActive).toBe(true);
    const listed: Listed[] = await admin('list-links', '--runner', 'Ari App');
    expect(listed.map((l) => [l.madeBy, l.revoked])).toEqual([
      ['app', true],
      ['app', false],
    ]);
  });

  it('should list and revoke by link id as well as by token', async () => {
    const token = (await admin('create-link', '--runner', 'Ida Id', '--race', race)).token as string;
    await t.sendNote(token, { from: 'Max' });
    const id = linkIdOf(token).slice(0, 8);
    const notes = await admin('list-notes', '--link', id);
    expect(notes.map((n: { from: string }) => n.from)).toEqual(['Max']);
    expect(await admin('revoke-link', '--link', id)).toEqual({ linkId: linkIdOf(token), revoked: true });
    expect(await opens(token)).toBe(404);
  });

  it.each([
    [['replace-link'], 2, /^Missing --token \(or --link, the id list-links shows\)\.\n\nUsage: npm run admin -- replace-link/],
    [['replace-link', '--link', 'abc'], 2, /--link takes a link id as list-links shows it: 8 to 64/],
    [['replace-link', '--link', 'not-hex-at-all'], 2, /--link takes a link id/],
    [['replace-link', '--link', '00000000'], 2, /^No link's id starts with 00000000\. list-links shows them\.\n$/],
    [['replace-link', '--token', 'not-a-real-token'], 2, /No link has this token/],
    [['replace-link', '--token', 'x', '--link', '0123456789'], 2, /Give --token or --link, not both/],
    [['list-links', '--race', 'mars-2025'], 2, /Unknown race 'mars-2025'/],
  ])('should refuse %j with exit code %i and say why, changing nothing', async (args, code, message) => {
    const before = await admin('list-links');
    const run = await runAdmin(env, ...args);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
    expect(await admin('list-links')).toEqual(before);
  });
});
