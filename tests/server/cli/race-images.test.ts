import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRaceImage, MAX_RACE_IMAGE_INPUT_BYTES } from '../../../server/races/race-image.js';
import { LOCAL_BLOBS_DIR } from '../../../server/storage/index.js';
import { appBadgeHtml } from '../../../contract/appBadge.js';
import { raceTrackHtml, SPEC_RACE_CARDS } from '../../../contract/raceCards.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin, runAdminProcess } from '../support/cli.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { jpegPicture, lyingJpeg, pngHeaderOnly, pngPicture } from '../support/pictures.js';

interface Added {
  id: string;
  image?: { url: string; type: string; width: number; height: number; bytes: number; givenBytes: number };
}

describe.each(BACKENDS)('a race picture given with add-race --image on %s', (kind) => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  let dir: string;
  let firstUrl = '';
  const file = (name: string) => path.join(dir, name);
  const add = (id: string, image: string) =>
    runAdmin(
      env,
      'add-race',
      '--id',
      id,
      '--name',
      'Lakefront Marathon',
      '--date',
      '2099-10-11',
      '--timezone',
      'America/Chicago',
      '--start',
      '07:30',
      '--image',
      image,
    );
  const storedPictures = async () => (await readdir(path.join(t.backend.config.dataDir, LOCAL_BLOBS_DIR, 'race-images')).catch(() => [])).length;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-pictures-'));
    await mkdir(file('dist'));
    await writeFile(file('dist/index.html'), `<!doctype html><title>home</title>${appBadgeHtml(undefined)}${raceTrackHtml(SPEC_RACE_CARDS)}`);
    t = await startTestApp(kind, { DIST_DIR: file('dist'), HOME_PAGE_CACHE_SECONDS: '1' });
    env = { ...t.backend.env, PORT: '8080', PUBLIC_URL: '' };
    await writeFile(file('card.png'), pngPicture(640, 400));
    await writeFile(file('notes.png'), 'These are my notes, not a picture.\n');
    await writeFile(file('page.webp'), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    // A real PNG's start, then filler: past the cap whatever it holds.
    await writeFile(file('huge.png'), Buffer.concat([pngPicture(64, 40), Buffer.alloc(MAX_RACE_IMAGE_INPUT_BYTES, 1)]));
    await writeFile(file('bomb.png'), pngHeaderOnly(30_000, 30_000));
    await writeFile(file('lying.jpg'), await lyingJpeg());
    await writeFile(file('tiny.png'), pngPicture(48, 30));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should store the picture as this server made it again, serve that for a year at an address of its content, and show it on the card', async () => {
    const given = pngPicture(640, 400);
    const { code, stdout, stderr } = await add('lakefront-2099', file('card.png'));
    expect(code, stderr).toBe(0);
    const { image } = JSON.parse(stdout) as Added;
    expect(image).toMatchObject({ type: 'image/webp', width: 640, height: 400, givenBytes: given.length });
    expect(image!.url).toMatch(/^\/race-images\/lakefront-2099\.[0-9a-f]{16}\.card\.webp$/);
    firstUrl = image!.url;

    const res = await t.app.inject({ url: image!.url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // Not the operator's bytes: a WebP the server wrote, of the card's size, which is what the CLI said.
    expect(res.rawPayload.equals(given)).toBe(false);
    expect(res.rawPayload.length).toBe(image!.bytes);
    expect(await sharp(res.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 640, height: 400 });

    await expect.poll(async () => (await t.app.inject({ url: '/' })).body, { timeout: 5_000 }).toContain(`src="${image!.url}" alt=""`);
  });

  it("should answer 404 for any other name under /race-images/, even another race's key pattern", async () => {
    const { stdout } = await runAdmin(env, 'list-races');
    expect(stdout).toContain('lakefront-2099');
    const hash = firstUrl.split('.')[1];
    for (const url of [
      '/race-images/lakefront-2099.0000000000000000.card.webp',
      '/race-images/chicago-2025.0123456789abcdef.card.webp',
      `/race-images/lakefront-2099.${hash}.webp`,
      `/race-images/lakefront-2099.${hash}.png`,
      '/race-images/..%2Fsession-secret',
      '/race-images/x',
    ]) {
      expect((await t.app.inject({ url, headers: { accept: 'image/*' } })).statusCode, url).toBe(404);
    }
  });

  for (const [name, sentence] of [
    ['notes.png', /notes\.png is not a JPEG, PNG or WebP picture/],
    ['page.webp', /page\.webp is not a JPEG, PNG or WebP picture/],
    ['huge.png', /huge\.png is larger than 16 MiB/],
    ['bomb.png', /bomb\.png cannot be read as a picture \(.+\)\. Save it again/],
    ['lying.jpg', /lying\.jpg is 6000x6000 pixels \(36 megapixels\); a race's picture can be at most 25 megapixels/],
    ['tiny.png', /tiny\.png is 48x30 pixels, too small for the card; give one of at least 160x100/],
    ['missing.jpg', /missing\.jpg cannot be read \(ENOENT\)/],
  ] as const) {
    it(`should refuse ${name} in one sentence with exit code 2, adding no race and storing no file`, async () => {
      const before = await storedPictures();
      const { code, stdout, stderr } = await add(`refused-${name.replace('.', '-')}`, file(name));
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(sentence);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect((await runAdmin(env, 'list-races')).stdout).not.toContain('refused-');
      expect(await storedPictures()).toBe(before);
    });
  }

  it("should refuse a taken id before storing anything, leaving the other race's picture in place", async () => {
    const before = await storedPictures();
    const { code, stderr } = await add('lakefront-2099', file('card.png'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/A race with the id 'lakefront-2099' already exists/);
    expect(await storedPictures()).toBe(before);
    expect((await t.app.inject({ url: firstUrl })).statusCode).toBe(200);
  });

  it('should change the picture with edit-race --image, and take it off with --image none', async () => {
    await writeFile(file('other.jpg'), await jpegPicture(1600, 1000, 90));
    const edit = (...args: string[]) => runAdmin(env, 'edit-race', '--id', 'lakefront-2099', ...args);
    const changed = await edit('--image', file('other.jpg'));
    expect(changed.code, changed.stderr).toBe(0);
    const { image, imageBefore, changed: fields } = JSON.parse(changed.stdout) as { image: { url: string }; imageBefore: { url: string }; changed: string[] };
    expect(fields).toEqual(['image']);
    expect(imageBefore.url).toBe(firstUrl);
    expect(image.url).not.toBe(firstUrl);
    expect(changed.stderr).toContain(`picture ${firstUrl} -> ${image.url}`);
    expect(await sharp((await t.app.inject({ url: image.url })).rawPayload).metadata()).toMatchObject({ format: 'webp', width: 640, height: 400 });
    await expect.poll(async () => (await t.app.inject({ url: '/' })).body, { timeout: 5_000 }).toContain(`src="${image.url}" alt=""`);

    const cleared = await edit('--image', 'none');
    expect(cleared.code, cleared.stderr).toBe(0);
    await expect.poll(async () => (await t.app.inject({ url: '/' })).body, { timeout: 5_000 }).not.toContain(image.url);
    expect((await t.app.inject({ url: image.url })).statusCode).toBe(404);
    expect((await runAdmin(env, 'race-history', '--id', 'lakefront-2099')).stdout).toContain(image.url.split('/').pop());
  });

  it('should refuse edit-race with a file that is no picture, and change nothing else it was given', async () => {
    const before = await t.app.repo.races.get('lakefront-2099');
    const { code, stderr } = await runAdmin(env, 'edit-race', '--id', 'lakefront-2099', '--name', 'Renamed Marathon', '--image', file('notes.png'));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(await t.app.repo.races.get('lakefront-2099')).toEqual(before);
  });
});

describe('a race picture on S3', () => {
  let s3: TestS3;
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    s3 = await startS3();
    dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-pictures-'));
    await writeFile(path.join(dir, 'card.png'), pngPicture(320, 200));
    t = await startTestApp('sqlite', s3.env);
  });
  afterAll(async () => {
    await t.close();
    await s3.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should be stored by the CLI, which then exits, and served by a server on the same bucket', async () => {
    const { code, stdout, stderr } = await runAdminProcess(
      { ...t.backend.env, PORT: '8080', PUBLIC_URL: '' },
      'add-race',
      '--id',
      'bucket-2099',
      '--name',
      'Bucket Marathon',
      '--date',
      '2099-10-11',
      '--timezone',
      'America/Chicago',
      '--start',
      '07:30',
      '--image',
      path.join(dir, 'card.png'),
    );
    expect(code, stderr).toBe(0);
    const { image } = JSON.parse(stdout) as Added;
    const res = await t.app.inject({ url: image!.url });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBe(image!.bytes);
    expect(await sharp(res.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 320, height: 200 });
  });
});

describe('a race picture as this server makes it', () => {
  it('should refuse a lying JPEG by its real frame, 6000x6000, which the old sniffer read as 100x100', async () => {
    await expect(makeRaceImage(await lyingJpeg())).rejects.toThrow(/^is 6000x6000 pixels \(36 megapixels\)/);
  });

  it('should refuse a JPEG cut short, which a decoder would have to guess the rest of', async () => {
    const noise = await sharp({ create: { width: 800, height: 500, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .jpeg({ quality: 80 })
      .toBuffer();
    await expect(makeRaceImage(noise.subarray(0, noise.length >> 1))).rejects.toThrow(/^cannot be decoded as a picture \(.*premature end/i);
  });

  it("should cut a picture to the card's 8:5 and 640x400 at most, enlarging none, and keep none of its metadata", async () => {
    const square = await sharp(await jpegPicture(1200, 1200, 90))
      .withExif({ IFD0: { Copyright: 'the operator', Artist: 'someone' } })
      .jpeg()
      .toBuffer();
    const made = await makeRaceImage(square);
    expect(made).toMatchObject({ type: 'image/webp', extension: 'webp', width: 640, height: 400, inputBytes: square.length });
    expect(made.bytes.equals(square)).toBe(false);
    const meta = await sharp(made.bytes).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 640, height: 400 });
    expect(meta.exif).toBeUndefined();
    expect(await makeRaceImage(pngPicture(300, 200))).toMatchObject({ width: 300, height: 188 });
    // Turned by its EXIF orientation first: a portrait photo is cut as it is seen.
    const portrait = await sharp(await jpegPicture(1000, 800, 90))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    expect(await makeRaceImage(portrait)).toMatchObject({ width: 640, height: 400 });
  });

  it('should refuse a GIF, an SVG and an empty file without handing them to the decoder', async () => {
    for (const bytes of [Buffer.from('GIF89a\x01\x00\x01\x00'), Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), Buffer.alloc(0)]) {
      await expect(makeRaceImage(bytes)).rejects.toThrow(/^is not a JPEG, PNG or WebP picture/);
    }
  });
});
