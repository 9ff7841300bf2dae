import AxeBuilder from '@axe-core/playwright';
import { expect, speechWav, test } from './fixtures';
import { fillDetails, launchPhone, noteStates, openRecorder, record, serverNotes } from '../../kit/browser/recorder';
import { screenshot } from './support/screenshot';

test.describe('the recorder without signal', () => {
  test('a note sent offline is saved on the phone, survives a reload offline, and is delivered once back online', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      const page = await test.step('open the link online', () => openRecorder(context, server, token));
      const status = page.getByTestId('status-line');
      await expect(status).toHaveText('Online.');

      await test.step('go offline', () => context.setOffline(true));
      await expect(status).toContainText("You're offline. 0 notes waiting on this phone.");
      await fillDetails(page, 'Mile 20', 'Sam');
      await record(page, 3);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Saved on this phone']);
      await expect(status).toContainText("You're offline. 1 note waiting on this phone.");
      await expect(status).toContainText("Your notes will send automatically when you're back online");
      await screenshot(page, 'offline-saved');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

      await page.reload();
      await expect(page.getByRole('heading', { name: 'Alex', exact: true })).toBeVisible();
      await expect(noteStates(page)).toHaveText(['Saved on this phone']);
      expect(await serverNotes(server, token)).toHaveLength(0);

      await context.setOffline(false);
      await expect(status).toHaveText('Online.');
      await expect(noteStates(page)).toHaveText(['Safe with us'], { timeout: 15_000 });
      const notes = await serverNotes(server, token);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatchObject({ marker: 'mi-20', from: 'Sam' });
    } finally {
      await context.close();
    }
  });

  test('notes queued when the browser was closed are delivered once after it starts again, before the page is opened', async ({ server }) => {
    const token = await server.createLink('Alex');
    const wav = await speechWav();
    const first = await launchPhone(wav);
    let noteIds: string[];
    try {
      const page = await openRecorder(first.context, server, token);
      await first.context.setOffline(true);
      await fillDetails(page, 'Finish', 'Kim');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Saved on this phone']);
      await fillDetails(page, 'Mile 10', 'Kim');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Saved on this phone', 'Saved on this phone']);
      noteIds = await page.getByTestId('note').evaluateAll((items) => items.map((i) => i.getAttribute('data-note-id')!));
    } finally {
      await first.context.close();
    }
    expect(await serverNotes(server, token)).toHaveLength(0);

    // Chromium fires the pending Background Sync when the browser starts: no page is open.
    const second = await launchPhone(wav, first.dir);
    try {
      await expect.poll(async () => (await serverNotes(server, token)).map((n) => n.id).sort(), { timeout: 20_000 }).toEqual([...noteIds].sort());
      const page = await openRecorder(second.context, server, token);
      await expect(noteStates(page)).toHaveText(['Safe with us', 'Safe with us']);
      const notes = await serverNotes(server, token);
      expect(notes.map((n) => [n.marker, n.from]).sort()).toEqual([
        ['finish', 'Kim'],
        ['mi-10', 'Kim'],
      ]);
    } finally {
      await second.context.close();
    }
  });
});
