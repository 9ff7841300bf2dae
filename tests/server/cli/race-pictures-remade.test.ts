import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RACE_IMAGES } from '../../../server/storage/keys.js';
import { appBadgeHtml } from '../../../contract/appBadge.js';
import { raceTrackHtml, SPEC_RACE_CARDS } from '../../../contract/raceCards.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin } from '../support/cli.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { lyingJpeg, pngPicture } from '../support/pictures.js';

/** A key as add-race once named the operator's own bytes. */
const keyBefore = (raceId: string, bytes: Buffer, extension: string) =>
  `${RACE_IMAGES}${raceId}.${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.${extension}`;

interface Remade {
  race: string;
  outcome: string;
  image?: { url: string; type: string; width: number; height: number };
  reason?: string;
}

describe.each(BACKENDS)('pictures stored as the operator gave them, by an older server, on %s', (kind) => {
  let t: TestApp;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const photo = pngPicture(800, 500);
  const before = { photo: keyBefore('photo-2099', photo, 'png'), lying: '', gone: `${RACE_IMAGES}gone-2099.0123456789abcdef.webp` };
  const home = async () => (await t.app.inject({ url: '/' })).body;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-remade-'));
    await mkdir(path.join(dir, 'dist'));
    await writeFile(path.join(dir, 'dist/index.html'), `<!doctype html><title>home</title>${appBadgeHtml(undefined)}${raceTrackHtml(SPEC_RACE_CARDS)}`);
    t = await startTestApp(kind, { DIST_DIR: path.join(dir, 'dist'), HOME_PAGE_CACHE_SECONDS: '1' });
    env = { ...t.backend.env, PORT: '8080', PUBLIC_URL: '' };
    const lying = await lyingJpeg();
    before.lying = keyBefore('lying-2099', lying, 'jpg');
    await t.app.blobs.put(before.photo, Readable.from([photo]), { maxBytes: 1e6 });
    await t.app.blobs.put(before.lying, Readable.from([lying]), { maxBytes: 1e6 });
    const race = (id: string, key: string, type: string) =>
      t.app.repo.races.add({
        id,
        name: `${id} Marathon`,
        date: '2099-05-03',
        start: '07:30',
        timezone: 'America/Chicago',
        units: ['mi'],
        image: { key, type },
      });
    expect(await race('photo-2099', before.photo, 'image/png')).toBe(true);
    expect(await race('lying-2099', before.lying, 'image/jpeg')).toBe(true);
    expect(await race('gone-2099', before.gone, 'image/webp')).toBe(true);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should serve none of them and put none on a card until they are made again', async () => {
    for (const key of [before.photo, before.lying]) expect((await t.app.inject({ url: `/${key}` })).statusCode, key).toBe(404);
    const page = await home();
    expect(page).toContain('photo-2099 Marathon');
    expect(page).not.toContain('/race-images/');
  });

  it('should make each again with remake-race-pictures, and take off one that lies about its frame or is not in the store', async () => {
    const { code, stdout, stderr } = await runAdmin(env, 'remake-race-pictures');
    expect(code, stderr).toBe(0);
    const results = JSON.parse(stdout) as Remade[];
    expect(results.map((r) => [r.race, r.outcome])).toEqual(
      expect.arrayContaining([
        ['photo-2099', 'remade'],
        ['lying-2099', 'removed'],
        ['gone-2099', 'removed'],
      ]),
    );
    expect(results).toHaveLength(3);
    expect(results.find((r) => r.race === 'lying-2099')!.reason).toMatch(/^is 6000x6000 pixels/);
    expect(stderr).toMatch(/Took the picture off the race lying-2099: \/race-images\/lying-2099\.[0-9a-f]{16}\.jpg is 6000x6000 pixels/);

    const made = results.find((r) => r.race === 'photo-2099')!.image!;
    expect(made).toMatchObject({ type: 'image/webp', width: 640, height: 400 });
    const res = await t.app.inject({ url: made.url });
    expect(res.statusCode).toBe(200);
    expect(await sharp(res.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 640, height: 400 });
    expect(await t.app.repo.races.image('lying-2099')).toBeUndefined();
    expect(await t.app.repo.races.image('gone-2099')).toBeUndefined();
    await expect.poll(home, { timeout: 5_000 }).toContain(`src="${made.url}" alt=""`);
    expect((await runAdmin(env, 'race-history', '--id', 'photo-2099')).stdout).toContain(before.photo);
  });

  it('should change nothing when run again', async () => {
    const { code, stdout, stderr } = await runAdmin(env, 'remake-race-pictures');
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual([]);
    expect(stderr).toContain('nothing to change');
  });
});
