import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RACE_IMAGE_BYTES, sniffRaceImage } from '../../../server/races/race-image.js';
import { LOCAL_BLOBS_DIR } from '../../../server/storage/index.js';
import { raceTrackHtml, SPEC_RACE_CARDS } from '../../../src/shared/raceCards.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin, runAdminProcess } from '../support/cli.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { pngHeaderOnly, pngPicture } from '../support/pictures.js';

interface Added {
  id: string;
  image?: { url: string; type: string; width: number; height: number; bytes: number };
}

describe.each(BACKENDS)('a race picture given with add-race --image on %s', (kind) => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  let dir: string;
  let firstUrl = '';
  const file = (name: string) => path.join(dir, name);
  const add = (id: string, image: string) =>
    runAdmin(env, 'add-race', '--id', id, '--name', 'Lakefront Marathon', '--date', '2099-10-11', '--timezone', 'America/Chicago', '--start', '07:30', '--image', image);
  const storedPictures = async () => (await readdir(path.join(t.backend.config.dataDir, LOCAL_BLOBS_DIR, 'race-images')).catch(() => [])).length;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-pictures-'));
    await mkdir(file('dist'));
    await writeFile(file('dist/index.html'), `<!doctype html><title>home</title><div class="carousel__track">${raceTrackHtml(SPEC_RACE_CARDS)}</div>`);
    t = await startTestApp(kind, { DIST_DIR: file('dist'), HOME_PAGE_CACHE_SECONDS: '1' });
    env = { ...t.backend.env, PORT: '8080', PUBLIC_URL: '' };
    await writeFile(file('card.png'), pngPicture(640, 400));
    await writeFile(file('notes.png'), 'These are my notes, not a picture.\n');
    await writeFile(file('page.webp'), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    // A real PNG's start, then filler: past the cap whatever it holds.
    await writeFile(file('huge.png'), Buffer.concat([pngPicture(64, 40), Buffer.alloc(MAX_RACE_IMAGE_BYTES, 1)]));
    await writeFile(file('bomb.png'), pngHeaderOnly(30_000, 30_000));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should store the picture, serve it with its sniffed type for a year at an address of its content, and show it on the card', async () => {
    const { code, stdout, stderr } = await add('lakefront-2099', file('card.png'));
    expect(code, stderr).toBe(0);
    const { image } = JSON.parse(stdout) as Added;
    expect(image).toMatchObject({ type: 'image/png', width: 640, height: 400 });
    expect(image!.url).toMatch(/^\/race-images\/lakefront-2099\.[0-9a-f]{16}\.png$/);
    firstUrl = image!.url;

    const res = await t.app.inject({ url: image!.url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.rawPayload.equals(pngPicture(640, 400))).toBe(true);

    await expect.poll(async () => (await t.app.inject({ url: '/' })).body, { timeout: 5_000 }).toContain(`src="${image!.url}" alt=""`);
  });

  it("should answer 404 for any other name under /race-images/, even another race's key pattern", async () => {
    const { stdout } = await runAdmin(env, 'list-races');
    expect(stdout).toContain('lakefront-2099');
    for (const url of ['/race-images/lakefront-2099.0000000000000000.png', '/race-images/chicago-2025.0123456789abcdef.jpg', '/race-images/..%2Fsession-secret', '/race-images/x']) {
      expect((await t.app.inject({ url, headers: { accept: 'image/*' } })).statusCode, url).toBe(404);
    }
  });

  for (const [name, sentence] of [
    ['notes.png', /notes\.png is not a JPEG, PNG or WebP picture/],
    ['page.webp', /page\.webp is not a JPEG, PNG or WebP picture/],
    ['huge.png', /huge\.png is larger than 512 KiB/],
    ['bomb.png', /bomb\.png is 30000x30000 pixels; a race's picture can be at most 4096 on a side/],
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
    await writeFile(file('other.png'), pngPicture(800, 500));
    const edit = (...args: string[]) => runAdmin(env, 'edit-race', '--id', 'lakefront-2099', ...args);
    const changed = await edit('--image', file('other.png'));
    expect(changed.code, changed.stderr).toBe(0);
    const { image, imageBefore, changed: fields } = JSON.parse(changed.stdout) as { image: { url: string }; imageBefore: { url: string }; changed: string[] };
    expect(fields).toEqual(['image']);
    expect(imageBefore.url).toBe(firstUrl);
    expect(image.url).not.toBe(firstUrl);
    expect(changed.stderr).toContain(`picture ${firstUrl} -> ${image.url}`);
    expect((await t.app.inject({ url: image.url })).rawPayload.equals(pngPicture(800, 500))).toBe(true);
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
      'add-race', '--id', 'bucket-2099', '--name', 'Bucket Marathon', '--date', '2099-10-11', '--timezone', 'America/Chicago', '--start', '07:30', '--image', path.join(dir, 'card.png'),
    );
    expect(code, stderr).toBe(0);
    const { image } = JSON.parse(stdout) as Added;
    const res = await t.app.inject({ url: image!.url });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(pngPicture(320, 200))).toBe(true);
  });
});

describe('what a race picture is, by its bytes', () => {
  it('should read the size of a JPEG, a PNG and the three kinds of WebP', () => {
    const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffc0001108019002800301220002110103110100', 'hex');
    expect(sniffRaceImage(jpeg)).toMatchObject({ type: 'image/jpeg', extension: 'jpg', width: 640, height: 400 });
    expect(sniffRaceImage(pngPicture(3, 2))).toMatchObject({ type: 'image/png', width: 3, height: 2 });
    const riff = (chunk: string, body: Buffer) => Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), Buffer.from(chunk), Buffer.alloc(4), body]);
    const lossy = Buffer.alloc(14);
    lossy.writeUInt16LE(640, 6);
    lossy.writeUInt16LE(400, 8);
    expect(sniffRaceImage(riff('VP8 ', lossy))).toMatchObject({ type: 'image/webp', width: 640, height: 400 });
    // VP8L: 14 bits each of width-1 and height-1 after the 0x2f signature.
    const bits = (640 - 1) | ((400 - 1) << 14);
    const lossless = Buffer.alloc(10);
    lossless[0] = 0x2f;
    lossless.writeUInt32LE(bits, 1);
    expect(sniffRaceImage(riff('VP8L', lossless))).toMatchObject({ width: 640, height: 400 });
    const extended = Buffer.alloc(10);
    extended.writeUIntLE(640 - 1, 4, 3);
    extended.writeUIntLE(400 - 1, 7, 3);
    expect(sniffRaceImage(riff('VP8X', extended))).toMatchObject({ width: 640, height: 400 });
  });

  it('should refuse a GIF, an SVG and an empty file', () => {
    for (const bytes of [Buffer.from('GIF89a\x01\x00\x01\x00'), Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), Buffer.alloc(0)]) {
      expect(() => sniffRaceImage(bytes)).toThrow(/is not a JPEG, PNG or WebP picture/);
    }
  });
});
