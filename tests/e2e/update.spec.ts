import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './fixtures';
import { waitForControllingWorker } from './support/worker';

const swFile = path.resolve(import.meta.dirname, '../../dist/sw.js');

test('should leave an open page alone when a new version of the site is waiting', async ({ page }) => {
  await page.goto('/');
  await waitForControllingWorker(page);
  await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

  const original = await readFile(swFile, 'utf8');
  // The server sends the build's compressed copies when they exist: the new release is the plain file alone.
  const compressed = await Promise.all(['.br', '.gz'].map(async (ext) => [swFile + ext, await readFile(swFile + ext)] as const));
  try {
    await Promise.all(compressed.map(([file]) => rm(file)));
    await writeFile(swFile, `${original}\n// a new release\n`);
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
    await page.waitForFunction(async () => Boolean((await navigator.serviceWorker.getRegistration())?.waiting));
  } finally {
    await writeFile(swFile, original);
    await Promise.all(compressed.map(([file, body]) => writeFile(file, body)));
  }
  expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
  expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active?.state)).toBe('activated');
});
