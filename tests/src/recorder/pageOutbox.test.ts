import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAILED } from '../../../src/recorder/failures.js';
import { MIN_TIMER_MS, createPageOutbox, type PageOutboxEnv } from '../../../src/recorder/pageOutbox.js';
import { NOTE_STATES } from '../../../src/outbox/notes.js';
import { RecordingMissingError, allNotes, appendChunk, getNote, isPending, listNotes, startRecording, updateNote } from '../../../src/outbox/index.js';
import { TOKEN, bytes, freshDb, queuedNote, scriptedTransport } from '../outbox/helpers.js';

// The real store, wrapped so a test can make one read fail as a broken IndexedDB would.
vi.mock('../../../src/outbox/store.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/outbox/store.js')>();
  return { ...real, allNotes: vi.fn(real.allNotes), listNotes: vi.fn(real.listNotes) };
});

const details = { marker: 'mi-20', markerLabel: 'Mile 20', from: 'Sam', durationMs: 1_000 };
const broken = () => new DOMException('The database connection is closing.', 'UnknownError');

async function draft(id = 'rec-page') {
  await startRecording({ id, token: TOKEN, contentType: 'audio/webm;codecs=opus', startedAt: 1, updatedAt: 1 });
  await appendChunk(id, 0, bytes(1, 2, 3));
  return id;
}

let stops: (() => void)[] = [];

function pageWith(env: Partial<PageOutboxEnv> = {}) {
  const uploads = scriptedTransport([201]);
  const requestSync = vi.fn(async () => true);
  const page = createPageOutbox(TOKEN, { transport: uploads.transport, online: () => true, requestSync, backgroundSync: false, ...env });
  stops.push(page.stop);
  return { page, uploads, requestSync };
}

beforeEach(freshDb);
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
  vi.mocked(allNotes).mockReset();
  vi.mocked(listNotes).mockReset();
});

describe("the recorder page's outbox", () => {
  it('should send a draft in one step: saved as a pending note, shown, uploaded now and handed to the worker', async () => {
    const { page, uploads, requestSync } = pageWith();
    const note = await page.send(await draft(), details);
    expect(page.snapshot()).toMatchObject({ pending: 1, drafts: [], notes: [{ id: note.id, state: 'waiting', marker: 'mi-20' }] });
    await expect.poll(async () => (await getNote(note.id))?.state).toBe('delivered');
    expect(uploads.calls).toHaveLength(1);
    expect(requestSync).toHaveBeenCalledOnce();
    await expect.poll(() => page.snapshot().backgroundSync).toBe(true);
  });

  it('should promise no background sending once the browser refused the request', async () => {
    const { page } = pageWith({ backgroundSync: true, requestSync: async () => false });
    expect(page.snapshot().backgroundSync).toBe(true);
    await page.send(await draft(), details);
    await expect.poll(() => page.snapshot().backgroundSync).toBe(false);
  });

  it('should reject a send that could not be saved, keeping the draft, uploading and asking nothing', async () => {
    const { page, uploads, requestSync } = pageWith();
    await startRecording({ id: 'empty', token: TOKEN, contentType: 'audio/webm', startedAt: 1, updatedAt: 1 });
    await expect(page.send('empty', details)).rejects.toBeInstanceOf(RecordingMissingError);
    await page.refresh();
    expect(page.snapshot()).toMatchObject({ pending: 0, notes: [], drafts: [{ id: 'empty' }] });
    expect(uploads.calls).toHaveLength(0);
    expect(requestSync).not.toHaveBeenCalled();
  });

  it('should keep a sent note saved, and upload nothing, while the browser is offline', async () => {
    const { page, uploads } = pageWith({ online: () => false });
    const note = await page.send(await draft(), details);
    await page.replay(true);
    expect(uploads.calls).toHaveLength(0);
    expect((await getNote(note.id))!.state).toBe('waiting');
  });

  it('should count as pending exactly the notes the outbox calls pending, whatever their state', async () => {
    const { page } = pageWith();
    for (const state of NOTE_STATES) {
      const note = await queuedNote(undefined, `mi-${state}`);
      await updateNote(note.id, (n) => ({ ...n, state }));
    }
    await page.refresh();
    expect(page.snapshot().pending).toBe(NOTE_STATES.filter((state) => isPending({ state })).length);
    expect(page.snapshot().notes).toHaveLength(NOTE_STATES.length);
  });

  it('should wake up for a note left sending by an uploader that died, not only for a waiting one', async () => {
    let online = false;
    const { page, uploads } = pageWith({ online: () => online });
    const note = await queuedNote();
    await updateNote(note.id, (n) => ({ ...n, state: 'sending', nextAttemptAt: Date.now() }));
    page.start();
    online = true;
    await expect.poll(async () => (await getNote(note.id))!.state, { timeout: MIN_TIMER_MS * 5 }).toBe('delivered');
    expect(uploads.calls).toHaveLength(1);
  });

  it('should start a note that waited behind several network failures within 2 s of the link coming back, with no event from the browser', async () => {
    let up = false;
    const bodies: number[] = [];
    const transport: PageOutboxEnv['transport'] = async (request) => {
      if (!up) throw new TypeError('Failed to fetch');
      if (request.method === 'HEAD') return { status: 404, body: '{}', retryAfter: null };
      bodies.push(Date.now());
      return { status: 201, body: '{}', retryAfter: null };
    };
    const { page } = pageWith({ transport });
    const note = await queuedNote();
    // Several failures behind it: its next try by backoff is 20 s away.
    await updateNote(note.id, (n) => ({ ...n, attempts: 6, lastStatus: 0, nextAttemptAt: Date.now() + 20_000 }));
    page.start();
    await expect.poll(async () => (await getNote(note.id))!.attempts).toBe(7);
    up = true;
    const back = Date.now();
    await expect.poll(() => bodies.length, { timeout: 2_000, interval: 50 }).toBe(1);
    expect(bodies[0]! - back).toBeLessThanOrEqual(2_000);
    await expect.poll(async () => (await getNote(note.id))!.state).toBe('delivered');
  });

  it('should show the progress of an upload from whichever uploader has it', () => {
    const { page } = pageWith();
    const seen = vi.fn();
    page.subscribe(seen);
    page.hear({ type: 'outbox-progress', noteId: 'n1', fraction: 0.4 });
    expect(page.snapshot().progress).toEqual({ n1: 0.4 });
    expect(seen).toHaveBeenCalledOnce();
  });
});

describe('what the page says when the outbox itself fails', () => {
  it('should keep a stopped send on screen after a good read, until a replay works again', async () => {
    const { page } = pageWith();
    await queuedNote();
    vi.mocked(allNotes).mockRejectedValueOnce(broken());
    await page.replay(true);
    expect(page.snapshot().failure).toBe(FAILED.send);
    await page.refresh();
    expect(page.snapshot().failure).toBe(FAILED.send);
    await page.replay(true);
    expect(page.snapshot().failure).toBeUndefined();
  });

  it('should keep a failed read on screen after a replay works again, until a read works again', async () => {
    const { page } = pageWith();
    await queuedNote();
    vi.mocked(listNotes).mockRejectedValueOnce(broken());
    await page.refresh();
    expect(page.snapshot().failure).toBe(FAILED.readNotes);
    vi.mocked(allNotes).mockRejectedValueOnce(broken());
    await page.replay(true);
    expect(page.snapshot().failure).toBe(FAILED.readNotes);
    await page.replay(true);
    expect(page.snapshot().failure).toBe(FAILED.readNotes);
    await page.refresh();
    expect(page.snapshot().failure).toBeUndefined();
  });

  it('should say the read failed first when both did, and the stopped send once reading works', async () => {
    const { page } = pageWith();
    await queuedNote();
    vi.mocked(allNotes).mockRejectedValueOnce(broken());
    vi.mocked(listNotes).mockRejectedValueOnce(broken());
    await page.replay(true);
    await page.refresh();
    expect(page.snapshot().failure).toBe(FAILED.readNotes);
    await page.refresh();
    expect(page.snapshot().failure).toBe(FAILED.send);
  });
});
