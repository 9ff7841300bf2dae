/**
 * docs/app-contract.md's worked examples, run as written: each ```js example block against a
 * fresh listening server (so one example's sign-ins do not spend another's rate limit), with the
 * helpers the page names. A change that breaks what the page tells the app team fails here.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_APPLE_NONCE } from '../../../stand-ins/fakeApple.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';
import { positionAt, startRace } from '../support/live-race.js';

const root = path.resolve(import.meta.dirname, '../../..');
const page = readFileSync(path.join(root, 'docs/app-contract.md'), 'utf8');

/** Each example with the heading it is under. */
const examples = [...page.matchAll(/^## (.+)$|^```js example\n([\s\S]*?)^```$/gm)].reduce<Array<{ section: string; code: string }>>((found, match, _i, all) => {
  if (match[2] !== undefined) {
    const heading = all
      .slice(0, all.indexOf(match))
      .reverse()
      .find((m) => m[1] !== undefined);
    found.push({ section: heading?.[1] ?? 'top', code: match[2] });
  }
  return found;
}, []);

const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;

describe('the worked examples of docs/app-contract.md', () => {
  let t: RunnerTestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('should have one in each section', () => {
    const sections = [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections.filter((s) => !examples.some((e) => e.section === s))).toEqual([]);
  });

  it.each(examples.map((e, i) => [`${i + 1}. ${e.section}`, e.code] as const))('should run example %s as written', async (_name, code) => {
    t = await startRunnerApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const apple = t.apple;
    const helpers = {
      base,
      expect,
      /** What Apple's sign-in sheet hands the app: an identity token carrying the nonce. */
      appleToken: ({ nonce }: { nonce: string }) => apple.token({ nonce }),
      signIn: () => t!.signIn(),
      /** A friend sends a note through the link (the recorder's upload), and it is converted. */
      sendNoteAsFriend: (token: string, opts: { marker: string; from: string }) => t!.sendNote(token, opts),
      /** The operator moves the race's start to `minutesAgo` minutes ago, on a straight course north of Chicago; its start in ms. */
      startRace: (raceId: string, minutesAgo: number) => startRace(t!.app.repo, raceId, minutesAgo),
      /** What the phone's GPS gives `meters` along that course at `at` (ms). */
      positionAt: (meters: number, at: number) => positionAt(meters, at),
    };
    await new AsyncFunction(...Object.keys(helpers), code)(...Object.values(helpers));
  });

  it('should use the nonce the fake Apple signs by default only through the helper', () => {
    // The examples make their own nonce: the raw nonce travels, Apple's token carries it.
    expect(page).not.toContain(FAKE_APPLE_NONCE);
  });
});
