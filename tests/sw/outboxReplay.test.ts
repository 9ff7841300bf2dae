import { beforeEach, describe, expect, it } from 'vitest';
import { createOutboxSync } from '../../sw/outboxReplay.js';
import { getNote } from '../../src/outbox/index.js';
import { freshDb, queuedNote, scriptedTransport } from '../src/outbox/helpers.js';

beforeEach(freshDb);

function fakeClients() {
  const received: unknown[] = [];
  return { received, clients: async () => [{ postMessage: (m: unknown) => void received.push(m) }] };
}

describe('the service worker outbox sync', () => {
  it('delivers queued notes and tells every open page about each one', async () => {
    const a = await queuedNote(undefined, 'mi-1', 1);
    const b = await queuedNote(undefined, 'mi-2', 2);
    const { received, clients } = fakeClients();
    await createOutboxSync({ transport: scriptedTransport([201]).transport, clients })();
    expect(received).toEqual([
      { type: 'note-delivered', noteId: a.id },
      { type: 'note-delivered', noteId: b.id },
    ]);
  });

  it('fails the sync event while notes are still waiting, so the browser tries again', async () => {
    const note = await queuedNote();
    const { clients } = fakeClients();
    await expect(createOutboxSync({ transport: scriptedTransport([503]).transport, clients })()).rejects.toThrow('1 note(s) still waiting');
    expect((await getNote(note.id))!.state).toBe('waiting');
  });

  it('completes quietly when a 4xx needs the person, since retrying in the background cannot help', async () => {
    const note = await queuedNote();
    const { received, clients } = fakeClients();
    await createOutboxSync({ transport: scriptedTransport([415]).transport, clients })();
    expect(received).toEqual([]);
    expect((await getNote(note.id))!.state).toBe('failed');
  });

  it("sets the icon's badge to the notes still not delivered after a run", async () => {
    await queuedNote(undefined, 'mi-1', 1);
    await queuedNote(undefined, 'mi-2', 2);
    const { calls, badge } = spyBadge();
    // The first note goes, the second meets a busy server and waits.
    await expect(createOutboxSync({ transport: scriptedTransport([201, 503]).transport, clients: fakeClients().clients, badge })()).rejects.toThrow();
    expect(calls).toEqual(['set 1']);
  });

  it("clears the icon's badge once every note is delivered", async () => {
    await queuedNote();
    const { calls, badge } = spyBadge();
    await createOutboxSync({ transport: scriptedTransport([201]).transport, clients: fakeClients().clients, badge })();
    expect(calls).toEqual(['clear']);
  });
});

function spyBadge() {
  const calls: string[] = [];
  const badge = {
    setAppBadge: async (n?: number) => void calls.push(`set ${n}`),
    clearAppBadge: async () => void calls.push('clear'),
  };
  return { calls, badge };
}
