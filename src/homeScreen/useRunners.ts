import { useCallback, useEffect, useRef, useState } from 'react';
import { getLink, uploadNote } from '../apiClient.js';
import { forgetHomeScreenLink, getHomeScreenLinks } from './linksClient.js';
import { showWaitingOnBadge } from '../outbox/badge.js';
import type { HomeScreenLink } from '../../contract/homeScreenApi.js';
import { OUTBOX_CHANNEL, type OutboxBroadcast } from '../../contract/messages.js';
import type { OutboxNote } from '../outbox/notes.js';
import { allLinks, allNotes, deleteNote, markLinkGone, markLinkRemoved, saveLink, sha256Hex } from '../outbox/index.js';
import { reconcile, runnerRows, type KeptLink, type RunnerRow } from './runners.js';
import { sendWaitingNotes } from './sendWaiting.js';

/** How long the start waits for the server before it shows what the phone keeps (one bar of signal). */
export const SERVER_WAIT_MS = 4_000;
/** Links the server lists that the phone lacks, fetched at most this many per start (an iPhone's first). */
const FETCH_MAX = 20;

export interface RunnersView {
  /** 'loading' until the phone's list is read and the server answered, could not, or took too long. */
  status: 'loading' | 'ready';
  rows: RunnerRow[];
  /** The server was not reached: the list is what the phone keeps. */
  offline: boolean;
}

interface Facts {
  kept: KeptLink[];
  notes: OutboxNote[];
  /** The server's list; undefined until (or unless) it answered. */
  server?: HomeScreenLink[];
  localRead: boolean;
  serverDone: boolean;
}

/** A link's id as the server names it: the SHA-256 of its token (server/links.ts). */
const linkIdOf = (token: string) => sha256Hex(new TextEncoder().encode(token).buffer as ArrayBuffer);
const ignore = () => undefined;

/**
 * The home screen's list, kept current: what the phone keeps at once (no signal needed), joined
 * with the server's list when it answers, and the phone brought to agree with it (revoked links
 * marked, links it lacks kept for later). Notes still waiting are sent from here too, as from the
 * recorder: on iPhone the installed app has no Background Sync. Reads and writes go through the
 * outbox module; what is shown is runners.ts's to decide.
 */
export function useRunners() {
  const [view, setView] = useState<RunnersView>({ status: 'loading', rows: [], offline: false });
  const facts = useRef<Facts>({ kept: [], notes: [], localRead: false, serverDone: false });
  // Server-only rows taken off in this visit: not fetched and kept behind the person's back.
  const takenOff = useRef(new Set<string>());
  const firstLocalRead = useRef<Promise<void>>(undefined);

  const show = useCallback(() => {
    const f = facts.current;
    if (!f.localRead) return;
    setView({
      status: f.serverDone ? 'ready' : 'loading',
      rows: runnerRows(f.kept, f.notes, f.server, Date.now()),
      offline: f.serverDone && f.server === undefined,
    });
  }, []);

  const readLocal = useCallback(async () => {
    try {
      const [links, notes] = await Promise.all([allLinks(), allNotes()]);
      facts.current.kept = await Promise.all(links.map(async (link) => ({ ...link, linkId: await linkIdOf(link.token) })));
      facts.current.notes = notes;
    } catch {
      // Storage that cannot be read (turned off, private mode): the server's list still shows.
    }
    facts.current.localRead = true;
    show();
  }, [show]);

  /** The phone agrees with the server's list: revoked links marked, retried removals, missing links kept. */
  const agree = useCallback(
    async (server: HomeScreenLink[]) => {
      // Against what the phone keeps once it is read: the server often answers first, and compared with
      // an empty list nothing is marked gone, no removal is retried, and every kept link is written over.
      await firstLocalRead.current;
      const todo = reconcile(facts.current.kept, server);
      for (const token of todo.gone) await markLinkGone(token).catch(ignore);
      for (const linkId of todo.forget) await forgetHomeScreenLink(linkId);
      for (const token of todo.fetch.slice(0, FETCH_MAX)) {
        const linkId = await linkIdOf(token);
        if (takenOff.current.has(linkId)) continue;
        const answer = await getLink(token);
        // Taken off while it was on its way: not kept behind the person's back.
        if (answer.ok && !takenOff.current.has(linkId)) await saveLink(token, answer.value).catch(ignore);
      }
      await readLocal();
    },
    [readLocal],
  );

  const readServer = useCallback(async () => {
    const answer = await getHomeScreenLinks();
    const f = facts.current;
    if (answer.ok) f.server = answer.value.links.filter((link) => !takenOff.current.has(link.linkId));
    f.serverDone = true;
    show();
    if (answer.ok) await agree(f.server!);
  }, [show, agree]);

  useEffect(() => {
    const f = facts.current;
    const sender = sendWaitingNotes(uploadNote, () => navigator.onLine);
    const timer = setTimeout(() => {
      f.serverDone = true;
      show();
    }, SERVER_WAIT_MS);
    firstLocalRead.current = readLocal();
    if (navigator.onLine) void readServer();
    else {
      f.serverDone = true;
      show();
    }
    void sender.send(true);
    void showWaitingOnBadge();
    const channel = new BroadcastChannel(OUTBOX_CHANNEL);
    channel.onmessage = (event: MessageEvent<OutboxBroadcast>) => {
      if (event.data.type !== 'outbox-changed') return;
      void readLocal();
      void showWaitingOnBadge();
    };
    const onOnline = () => {
      void sender.send(true);
      void readServer();
    };
    window.addEventListener('online', onOnline);
    return () => {
      clearTimeout(timer);
      sender.stop();
      channel.close();
      window.removeEventListener('online', onOnline);
    };
  }, [show, readLocal, readServer]);

  /**
   * Takes a runner off the list; with `deleteWaiting`, first deletes the notes for them that can no
   * longer be sent (the person confirmed it). Notes that can still go stay, and so does the row
   * until they have gone. False when the server could not be told and the phone keeps nothing to
   * remember the choice by (a row known only from the server).
   */
  const remove = useCallback(
    async (row: RunnerRow, deleteWaiting: boolean): Promise<boolean> => {
      const f = facts.current;
      if (deleteWaiting) for (const note of f.notes) if (note.token === row.token && note.state !== 'delivered') await deleteNote(note.id);
      if (row.kept && row.token !== undefined) await markLinkRemoved(row.token);
      else takenOff.current.add(row.linkId);
      const told = await forgetHomeScreenLink(row.linkId);
      if (!row.kept && !told) {
        takenOff.current.delete(row.linkId);
        return false;
      }
      f.server = f.server?.filter((link) => link.linkId !== row.linkId);
      await readLocal();
      return true;
    },
    [readLocal],
  );

  return { ...view, remove };
}
