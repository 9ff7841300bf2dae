import { expect, speechWav, test } from './fixtures';
import { startBadNetwork } from '../../stand-ins/badNetwork/index';
import { launchPhone, noteStates, openRecorder, fillDetails, pageAudioSha256, serverNotes } from '../../kit/browser/recorder';

const CUT_AFTER_BYTES = 40_000;

test.describe('the recorder on a link that drops every connection', () => {
  test('a 60 s note arrives intact through a link cut every 40 KB, with little more on the wire than the note', async ({ server }) => {
    test.setTimeout(240_000);
    const token = await server.createLink('Alex');
    const proxy = await startBadNetwork({ host: '127.0.0.1', port: server.port }, { kind: 'cut', afterBytes: CUT_AFTER_BYTES });
    const { context } = await launchPhone(await speechWav());
    try {
      // The page, its worker and every upload go through the proxy.
      const page = await openRecorder(context, { ...server, url: proxy.url }, token);
      await fillDetails(page, 'Mile 20', 'Sam');
      await page.getByRole('button', { name: 'Record' }).click();
      // The recorder stops by itself at its 60 s cap.
      await expect(page.getByRole('button', { name: 'Send' })).toBeVisible({ timeout: 75_000 });
      proxy.resetCount();
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us'], { timeout: 120_000 });

      const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
      const sent = await pageAudioSha256(page, noteId);
      const notes = await serverNotes(server, token);
      expect(notes.map((n) => [n.id, n.sha256])).toEqual([[noteId, sent]]);
      const audioBytes = notes[0]!.bytes;
      // Long enough to need several connections: this is what the test is about.
      expect(audioBytes).toBeGreaterThan(3 * CUT_AFTER_BYTES);
      const ratio = proxy.bytesUp() / audioBytes;
      console.log(`resume: ${audioBytes} audio bytes, ${proxy.bytesUp()} bytes up, ${proxy.cuts()} cuts, ratio ${ratio.toFixed(3)}`);
      expect(ratio).toBeLessThan(1.3);
    } finally {
      await context.close();
      await proxy.close();
    }
  });
});
