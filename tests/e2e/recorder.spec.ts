import AxeBuilder from '@axe-core/playwright';
import { expect, speechWav, test } from './fixtures';
import {
  analyseAudio,
  blobsWithSha256,
  elapsedShown,
  fillDetails,
  launchPhone,
  noteStates,
  openRecorder,
  pageAudioSha256,
  record,
  serverNotes,
  waitForElapsed,
} from '../../kit/browser/recorder';
import { screenshot } from './support/screenshot';

test.describe('the recorder, online', () => {
  test('a 5 s note is delivered and the server holds the same bytes, about 5 s of speech', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      const page = await openRecorder(context, server, token);
      await expect(page.getByRole('heading', { name: 'Alex' })).toBeVisible();
      await screenshot(page, 'ready');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

      await fillDetails(page, 'Mile 20', 'Sam');
      await page.getByRole('button', { name: 'Record' }).click();
      await waitForElapsed(page, 2);
      await screenshot(page, 'recording');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
      await waitForElapsed(page, 5);
      // Under load the scan above can outlast a tick or two: the note is as long as the clock said at Stop.
      const shown = await elapsedShown(page);
      await page.getByRole('button', { name: 'Stop' }).click();
      await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
      await screenshot(page, 'review');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      await screenshot(page, 'delivered');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

      const notes = await serverNotes(server, token);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatchObject({ marker: 'mi-20', from: 'Sam' });
      const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
      expect(notes[0]!.id).toBe(noteId);
      const recordedSha = await pageAudioSha256(page, noteId);
      expect(notes[0]!.sha256).toBe(recordedSha);
      const [file] = await blobsWithSha256(server, recordedSha);
      expect(file).toBeDefined();
      const audio = await analyseAudio(file!);
      expect(shown).toBeGreaterThanOrEqual(5);
      expect(audio.seconds).toBeGreaterThan(shown - 1);
      expect(audio.seconds).toBeLessThan(shown + 2);
      expect(audio.activeShare).toBeGreaterThan(0.4);
    } finally {
      await context.close();
    }
  });
});

test.describe('the recorder, when something is in the way', () => {
  test('a reload in the middle of a recording offers the partial note back, and it can be sent', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      const page = await openRecorder(context, server, token);
      await fillDetails(page, 'Mile 13', 'Jo');
      await page.getByRole('button', { name: 'Record' }).click();
      await waitForElapsed(page, 4);
      await page.reload();
      await expect(page.getByTestId('leftover')).toContainText('You have an unfinished recording');
      await screenshot(page, 'recovered');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
      await page.getByRole('button', { name: 'Listen and send' }).click();
      await expect(page.getByText('We kept the recording that was interrupted')).toBeVisible();
      await fillDetails(page, 'Mile 13', 'Jo');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      const [note] = await serverNotes(server, token);
      const [file] = await blobsWithSha256(server, note!.sha256);
      const audio = await analyseAudio(file!);
      // At most the last second before the reload is lost.
      expect(audio.seconds).toBeGreaterThan(2.5);
      expect(audio.activeShare).toBeGreaterThan(0.4);
    } finally {
      await context.close();
    }
  });

  test('Send without a marker or a name says what is missing and keeps the recording', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      const page = await openRecorder(context, server, token);
      await page.getByLabel('Your name').fill('');
      await record(page, 1);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByRole('alert')).toHaveText('Choose the marker where Alex should hear your note.');
      await page.getByLabel('Marker').selectOption({ label: 'Mile 5' });
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByRole('alert')).toHaveText("Add your name so Alex knows who it's from.");
      await screenshot(page, 'missing-details');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
      await page.getByLabel('Your name').fill('Pat');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      expect(await serverNotes(server, token)).toMatchObject([{ marker: 'mi-5', from: 'Pat' }]);
    } finally {
      await context.close();
    }
  });

  test('a denied microphone gets a message that says how to turn it on', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav(), undefined, { denyMicrophone: true });
    try {
      const page = await openRecorder(context, server, token);
      await page.getByRole('button', { name: 'Record' }).click();
      await expect(page.getByRole('alert')).toContainText('Microphone access is turned off for this page');
      await expect(page.getByRole('alert')).toContainText('Settings › Safari › Microphone');
      await screenshot(page, 'mic-denied');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a browser without MediaRecorder (in-app browsers) is told to open the link in a real browser', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      await context.addInitScript(() => Reflect.deleteProperty(window, 'MediaRecorder'));
      const page = await openRecorder(context, server, token);
      await page.getByRole('button', { name: 'Record' }).click();
      await expect(page.getByRole('alert')).toContainText("can't record audio");
      await expect(page.getByRole('alert')).toContainText('Open in Safari');
    } finally {
      await context.close();
    }
  });

  test('an unknown link says so plainly', async ({ server }) => {
    const { context } = await launchPhone(await speechWav());
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/r/${'x'.repeat(32)}`);
      await expect(page.getByRole('heading', { name: 'This link is not active' })).toBeVisible();
      await expect(page.getByRole('alert')).toContainText('Ask them to send it again');
      await screenshot(page, 'unknown-link');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
