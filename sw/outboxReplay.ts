/// <reference lib="webworker" />
/** Owns one worker-side outbox run: replay over the shared outbox, then tell open pages what arrived and the icon what still waits. */
import { replayOutbox, type Transport } from '../src/outbox/index.js';
import type { NoteDeliveredMessage } from '../contract/messages.js';
import { showWaitingOnBadge, type BadgeNavigator } from '../src/outbox/badge.js';

export interface SyncDeps {
  transport: Transport;
  /** The open pages to tell about a delivery. */
  clients: () => Promise<readonly Pick<Client, 'postMessage'>[]>;
  /** The worker's navigator, for the icon's badge (src/outbox/badge.ts): what is still undelivered after the run. */
  badge?: BadgeNavigator;
}

/** One sync run. Rejects while notes are still waiting, so the browser fires `sync` again later. */
export function createOutboxSync({ transport, clients, badge }: SyncDeps): () => Promise<void> {
  return async () => {
    const delivered: string[] = [];
    const report = await replayOutbox(transport, { onDelivered: (note) => delivered.push(note.id) });
    // With no page open the icon is all the person sees: it counts what is still not delivered.
    await showWaitingOnBadge(badge);
    const open = delivered.length ? await clients() : [];
    for (const noteId of delivered) {
      const message: NoteDeliveredMessage = { type: 'note-delivered', noteId };
      for (const client of open) client.postMessage(message);
    }
    if (report.waiting > 0) {
      throw new Error(`${report.waiting} note(s) still waiting${report.ran ? '' : ': another uploader is busy'}`);
    }
  };
}
