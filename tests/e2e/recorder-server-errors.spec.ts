import AxeBuilder from '@axe-core/playwright';
import type { Route } from '@playwright/test';
import { expect, speechWav, test } from './fixtures';
import { fillDetails, launchPhone, noteStates, openRecorder, pageAudioSha256, record, serverNotes } from '../../kit/browser/recorder';
import { screenshot } from './support/screenshot';

/**
 * Note uploads are PUT /api/r/<token>/notes/<id>. The heard-status poll (GET .../notes/<id>/status,
 * src/recorder/useHeard.ts) shares the path and starts once a note is delivered: handlers take
 * PUTs only and pass everything else on untouched.
 */
const NOTE_PUT = /\/api\/r\/[^/]+\/notes\//;
type RouteHandler = (route: Route) => Promise<void>;
const putsOnly =
  (handler: RouteHandler): RouteHandler =>
  async (route) =>
    route.request().method() === 'PUT' ? handler(route) : route.fallback();

test.describe('the recorder when the server says no', () => {
  test('a server answering 500 for a while is retried with backoff and the note delivered once', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      let failuresLeft = 2;
      let attempts = 0;
      // context.route also sees the service worker's requests in Chromium: every uploader is covered.
      await context.route(
        NOTE_PUT,
        putsOnly(async (route) => {
          attempts++;
          if (failuresLeft-- > 0) {
            await route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"internal","message":"Something went wrong."}' });
          } else await route.continue();
        }),
      );
      // Once delivered, the page asks where the runner heard the note: that GET is not an upload.
      const statusAsked = context.waitForEvent('request', (request) => request.method() === 'GET' && /\/notes\/[^/]+\/status$/.test(request.url()));
      const page = await openRecorder(context, server, token);
      await fillDetails(page, 'Mile 8', 'Ana');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.getByTestId('note-reason')).toHaveText(/^The server is busy \(error 500\)\. It will be tried again in less than a minute\.$/);
      await expect(noteStates(page)).toHaveText(['Saved on this phone']);
      await screenshot(page, 'server-busy');
      await expect(noteStates(page)).toHaveText(['Safe with us'], { timeout: 20_000 });
      // Two 500s, then it got through: exactly three uploads, and the heard-status poll after it
      // (which an earlier version of this test counted as a fourth PUT) has happened too.
      await statusAsked;
      expect(attempts).toBe(3);
      expect(await serverNotes(server, token)).toHaveLength(1);
    } finally {
      await context.close();
    }
  });

  test("a 4xx puts the note in 'Needs attention' with the server's reason, keeps it, and Retry delivers it", async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      const refuse = putsOnly(async (route) =>
        route.fulfill({
          status: 413,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'too_large', message: 'This note is too long to send. Please keep it under a minute.' }),
        }),
      );
      await context.route(NOTE_PUT, refuse);
      const page = await openRecorder(context, server, token);
      await fillDetails(page, 'Mile 3', 'Lee');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Needs attention']);
      // Said from the code, in the sender's language (English here), whatever the server's own words.
      await expect(page.getByTestId('note-reason')).toHaveText(/^This recording is too big to send \(the limit is \d+ MB\)\. Please record a shorter note\.$/);
      await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Delete' })).toBeVisible();
      await screenshot(page, 'needs-attention');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

      const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
      const kept = await pageAudioSha256(page, noteId);
      await page.reload();
      await expect(noteStates(page)).toHaveText(['Needs attention']);
      expect(await serverNotes(server, token)).toHaveLength(0);

      await context.unroute(NOTE_PUT, refuse);
      await page.getByRole('button', { name: 'Retry' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      const notes = await serverNotes(server, token);
      expect(notes.map((n) => [n.id, n.sha256])).toEqual([[noteId, kept]]);
    } finally {
      await context.close();
    }
  });

  test("while a note uploads the person sees 'Sending' with its progress", async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      await context.route(
        NOTE_PUT,
        putsOnly(async (route) => {
          await released;
          await route.continue();
        }),
      );
      const page = await openRecorder(context, server, token);
      await fillDetails(page, 'Mile 26', 'Max');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText([/^Sending( \d+%)?$/]);
      await screenshot(page, 'sending');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
      release();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      expect(await serverNotes(server, token)).toHaveLength(1);
    } finally {
      await context.close();
    }
  });
});
