/**
 * The recorder's delivery journey, written once and run in WebKit, Firefox and Chromium
 * (playwright.engines.config.ts). Outages come from a proxy in front of the server, since only
 * Chromium can fake a network; WebKit and Firefox have no Background Sync, so they exercise the
 * page's own triggers (load, online, Retry, its timer), which Safari users depend on.
 */
import { readFile } from 'node:fs/promises';
import { blobsWithSha256, serverNotes } from '../../kit/browser/recorder';
import { expect, test } from './fixtures';
import { MAY_LOSE_SECONDS, noteLengths } from './support/noteLength';
import type { EnginePage } from './support/page';
import { convertedFile, fillDetails, listedNoteIds, openRecorder, record, recordFor, useSpeechMicrophone, waitForRecorder } from './support/recorder';

/** What each engine records with our type preference (src/recording/formats.ts): Content-Type and first bytes. */
const CONTAINERS = {
  webkit: { contentType: /^audio\/mp4/, magic: (b: Buffer) => b.subarray(4, 8).toString('latin1') === 'ftyp', name: 'fragmented MP4/AAC' },
  firefox: { contentType: /^audio\/webm/, magic: (b: Buffer) => b.readUInt32BE(0) === 0x1a45dfa3, name: 'WebM/Opus' },
  chromium: { contentType: /^audio\/webm/, magic: (b: Buffer) => b.readUInt32BE(0) === 0x1a45dfa3, name: 'WebM/Opus' },
};

/** We ask for about 3 kB/s (src/recording/formats.ts); containers add some. An engine ignoring it records 8.7 (WebKit) to 15 kB/s (Firefox). */
const MAX_BYTES_PER_SECOND = 4_500;

/**
 * The venue link in the resume scenario: every connection dies after this many upload bytes, so a
 * 20 s note (about 65 KB) needs four or five connections. The 60 s cap, a page timer the same in
 * every engine, is recorded to its end in Chromium (tests/e2e/recorder-resume.spec.ts).
 */
const CUT_AFTER_BYTES = 15_000;
const RESUME_NOTE_SECONDS = 20;

const PAGE_ONLY_SENDING = 'This browser sends them only while this page is open: keep it open, or open it again when you have signal.';

const hasBackgroundSync = (tab: EnginePage) => tab.run(() => typeof ServiceWorkerRegistration !== 'undefined' && 'sync' in ServiceWorkerRegistration.prototype);

test.describe('the recorder in every engine', () => {
  test('a spoken note is delivered, stored in the container this engine makes, and converted by the server', async ({
    server,
    faults,
    tab,
    wav,
    engineName,
  }, testInfo) => {
    const token = await server.createLink('Alex');
    await openRecorder(tab, faults.url, token);
    await useSpeechMicrophone(tab, wav);
    await fillDetails(tab, 'Mile 20', 'Sam');
    await record(tab, 5);
    await tab.click('Send');
    await tab.waitForTexts('note-state', ['Safe with us']);

    const notes = await serverNotes(server, token);
    expect(notes).toHaveLength(1);
    const [note] = notes;
    expect(note).toMatchObject({ marker: 'mi-20', from: 'Sam' });
    const container = CONTAINERS[engineName];
    expect(note!.contentType).toMatch(container.contentType);
    // After the conversion, so no file of the worker's is being written while the blobs are read.
    await expect
      .poll(async () => (await serverNotes(server, token))[0]?.status, { timeout: 30_000, message: 'the server converts the note' })
      .toBe('converted');
    const [original] = await blobsWithSha256(server, note!.sha256);
    expect(original, 'the original upload is stored byte for byte').toBeDefined();
    await testInfo.attach('recorded by the engine', { path: original! });
    expect(container.magic(await readFile(original!)), `the stored file is ${container.name}`).toBe(true);
    const [kept] = await tab.outboxNotes();
    const seconds = kept!.durationMs / 1000;
    const length = await noteLengths(original!, await convertedFile(server, note!.id), testInfo.outputPath('engine-recording.mp4'));
    const lengthLine = `${engineName}: page clock ${seconds.toFixed(3)} s, engine wrote ${length.recorded.toFixed(3)} s (${length.repeatedMoofs} moof repeated), converted ${length.converted.toFixed(3)} s`;
    testInfo.annotations.push({ type: 'note length', description: lengthLine });
    console.log(`[length] ${lengthLine}`);
    // Every word the engine wrote is kept: WebKitGTK's repeated last moof (moof, the same moof, mdat)
    // cost the note its last fragment until the server repaired it (server/audio/mp4-repair.ts).
    expect(Math.abs(length.converted - length.recorded), 'the converted note is as long as what the engine wrote, within 0.2 s').toBeLessThan(0.2);
    // Against the page's clock: what WebKitGTK itself drops at stop is audio no server has.
    expect(length.converted, 'the converted note is as long as the recording').toBeGreaterThan(seconds - MAY_LOSE_SECONDS[engineName]);
    expect(length.activeShare, 'the converted note holds speech, not silence').toBeGreaterThan(0.5);

    const bytesPerSecond = Math.round(note!.bytes / seconds);
    const line = `${engineName} ${note!.contentType}: ${bytesPerSecond} B/s of speech (${note!.bytes} B over ${seconds.toFixed(1)} s recorded)`;
    testInfo.annotations.push({ type: 'bitrate', description: line });
    console.log(`[bitrate] ${line}`);
    expect(bytesPerSecond, 'the engine honours audioBitsPerSecond').toBeLessThan(MAX_BYTES_PER_SECOND);
  });

  test("with the server unreachable the note is 'Saved on this phone' with honest words, and a reload once it is back delivers it once", async ({
    server,
    faults,
    tab,
  }) => {
    const token = await server.createLink('Alex');
    await openRecorder(tab, faults.url, token);
    await fillDetails(tab, 'Mile 10', 'Kim');
    await record(tab, 2);
    faults.down();
    await tab.click('Send');
    await tab.waitForTexts('note-state', ['Saved on this phone']);
    const status = await tab.text('status-line');
    if (await hasBackgroundSync(tab)) expect(status).toBe('Online. 1 note waiting to send.');
    else expect(status).toBe(`Online. 1 note waiting to send. ${PAGE_ONLY_SENDING}`);
    const [id] = await listedNoteIds(tab);
    expect(await serverNotes(server, token)).toHaveLength(0);

    faults.up();
    await tab.engine.reload();
    await waitForRecorder(tab);
    await tab.waitForTexts('note-state', ['Safe with us']);
    expect((await serverNotes(server, token)).map((n) => n.id)).toEqual([id]);
  });

  test('503 answers and an upload cut midway, with the page open, end in one delivered note', async ({ server, faults, tab }) => {
    const token = await server.createLink('Alex');
    faults.failUploads({ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'cut', afterBytes: 4_096 });
    await openRecorder(tab, faults.url, token);
    await fillDetails(tab, 'Mile 3', 'Lee');
    await record(tab, 3);
    await tab.click('Send');
    await tab.waitForTexts('note-state', ['Safe with us'], 45_000);

    // The note's whole sends (the proxy also logs the resumable HEAD/PATCH requests between them).
    const creations = faults.uploads.filter((u) => u.method === 'PUT');
    expect(creations.map((u) => u.fate).slice(0, 4)).toEqual(['status', 'status', 'cut', 'passed']);
    expect(creations[2]!.bodyBytes).toBeGreaterThan(4_096);
    const [kept] = await tab.outboxNotes();
    const notes = await serverNotes(server, token);
    expect(notes.map((n) => [n.id, n.sha256])).toEqual([[kept!.id, kept!.sha256]]);
  });

  test('a 20 s note through a link cut every 15 KB is resumed, not restarted, and arrives intact with little more on the wire', async ({
    server,
    faults,
    tab,
    wav,
    engineName,
  }, testInfo) => {
    test.setTimeout(180_000);
    const token = await server.createLink('Alex');
    await openRecorder(tab, faults.url, token);
    await useSpeechMicrophone(tab, wav);
    await fillDetails(tab, 'Mile 20', 'Sam');
    await record(tab, RESUME_NOTE_SECONDS);
    faults.cutEveryConnection(CUT_AFTER_BYTES);
    await tab.click('Send');
    await tab.waitForTexts('note-state', ['Safe with us'], 120_000);

    const [kept] = await tab.outboxNotes();
    const notes = await serverNotes(server, token);
    expect(notes.map((n) => [n.id, n.sha256])).toEqual([[kept!.id, await tab.outboxAudioSha256(kept!.id)]]);
    const audioBytes = notes[0]!.bytes;
    // Long enough to need several connections: this is what the test is about.
    expect(audioBytes).toBeGreaterThan(3 * CUT_AFTER_BYTES);
    const methods = faults.uploads.map((u) => `${u.method} ${u.fate}`);
    expect(methods, 'after a cut the page asks where the upload stands and sends the rest').toEqual(expect.arrayContaining(['HEAD passed', 'PATCH passed']));
    expect(
      faults.uploads.filter((u) => u.method === 'PUT'),
      'the note is created once, never restarted from byte 0',
    ).toHaveLength(1);
    const wire = faults.uploads.reduce((sum, u) => sum + u.forwardedBytes, 0);
    const ratio = wire / audioBytes;
    const line = `${engineName}: ${audioBytes} audio bytes, ${wire} body bytes up, ${faults.cuts()} cuts, ratio ${ratio.toFixed(3)}; ${methods.join(', ')}`;
    testInfo.annotations.push({ type: 'resume', description: line });
    console.log(`[resume] ${line}`);
    expect(faults.cuts()).toBeGreaterThanOrEqual(3);
    expect(ratio).toBeLessThan(1.3);
  });

  test('a reload mid-recording offers the partial note back, and it is delivered and converted', async ({ server, faults, tab }) => {
    const token = await server.createLink('Alex');
    await openRecorder(tab, faults.url, token);
    await fillDetails(tab, 'Finish', 'Ana');
    await recordFor(tab, 3);
    await tab.engine.reload();
    await waitForRecorder(tab);
    await tab.waitFor('the unfinished recording to be offered', 10_000, () => document.querySelector('[data-testid="leftover"]') !== null);
    await tab.click('Listen and send');
    await tab.waitFor('the kept recording to be shown for review', 10_000, () =>
      document.body.textContent?.includes('We kept the recording that was interrupted.'),
    );
    await fillDetails(tab, 'Finish', 'Ana');
    await tab.click('Send');
    await tab.waitForTexts('note-state', ['Safe with us']);
    const notes = await serverNotes(server, token);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.bytes).toBeGreaterThan(0);
    await expect
      .poll(async () => (await serverNotes(server, token))[0]?.status, { timeout: 30_000, message: 'the server converts the partial note' })
      .toBe('converted');
  });

  test('a note queued when the browser ends is delivered once after it starts again', async ({ server, faults, tab, engine }) => {
    const token = await server.createLink('Alex');
    await openRecorder(tab, faults.url, token);
    await fillDetails(tab, 'Mile 13', 'Max');
    await record(tab, 2);
    faults.down();
    await tab.click('Send');
    await tab.waitForTexts('note-state', ['Saved on this phone']);
    const ids = await listedNoteIds(tab);

    await test.step(
      engine.restartKind === 'browser'
        ? 'restart the browser on the same profile'
        : 'close the tab and open a new one (MiniBrowser keeps no storage across browser starts)',
      () => engine.restart(),
    );
    faults.up();
    await openRecorder(tab, faults.url, token);
    await tab.waitForTexts('note-state', ['Safe with us']);
    expect((await serverNotes(server, token)).map((n) => n.id)).toEqual(ids);
  });
});
