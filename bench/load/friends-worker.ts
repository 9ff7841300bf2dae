/**
 * The worker side of FriendsThread (./friends.ts): race morning's friends, entrants and
 * probes as plain clients of the server, timed in this thread's own event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { seededRandom } from '../../stand-ins/seededRandom.js';
import { again, enter, signInWith, uploadNote, type Errors } from './crowd.js';
import type { FriendNote } from '../../stand-ins/friend.js';
import type { FriendsLoad, FriendsSetup, FromFriends, ProbeAsk, ToFriends, Upload } from './friends.js';
import { watchLoop } from './loopDelay.js';
import { paced } from './paced.js';

const setup = workerData as FriendsSetup;
const port = parentPort!;
const post = (m: FromFriends) => port.postMessage(m);
const errors: Errors = { add: (what, detail) => post({ kind: 'error', what, detail }) };
// The recordings arrive as plain bytes; each send is a fresh note (new id) of the recording of its length.
const recordings = new Map<number, FriendNote>(
  setup.notes.map((n) => [n.seconds, { ...n, id: '', audio: Buffer.from(n.audio.buffer, n.audio.byteOffset, n.audio.byteLength) }]),
);
const noteOf = (seconds: number) => again(recordings.get(seconds)!);

async function send(link: string, seconds: number, marker: string, from: string): Promise<Upload | undefined> {
  const note = noteOf(seconds);
  const ms = await uploadNote(setup.base, link, note, marker, from, errors);
  return ms === undefined ? undefined : { id: note.id, ms, okAt: Date.now() };
}

async function probe(n: number, ask: ProbeAsk): Promise<void> {
  const session = await signInWith(setup.base, ask.identityToken, errors);
  const upload = await send(ask.link, ask.seconds, ask.marker, ask.from);
  post({ kind: 'probe', n, result: { signInMs: session?.ms, upload } });
}

function startLoad(load: FriendsLoad) {
  const random = seededRandom(load.seed);
  const loop = watchLoop();
  let entrants = 0;
  let friendNotes = 0;
  const entering = paced(1000 / load.entrantsPerSecond, async () => {
    const n = entrants++;
    const identityToken = load.identityTokens[n];
    if (!identityToken) return errors.add('sign-in', 'the bench made too few identity tokens for its entrants');
    const session = await signInWith(setup.base, identityToken, errors);
    if (!session) return;
    post({ kind: 'signIn', ms: session.ms });
    await enter(setup.base, session.accessToken, load.raceId, `Entrant ${n + 1}`, errors);
  });
  const friends = paced(1000 / load.notesPerSecond, async () => {
    const n = friendNotes++;
    const link = load.links[Math.floor(random() * load.links.length)]!;
    const upload = await send(link, load.lengths[n % load.lengths.length]!, load.markers[n % load.markers.length]!, `Friend ${n + 1}`);
    if (upload) post({ kind: 'upload', upload });
  });
  return {
    async stop() {
      await Promise.all([entering.stop(), friends.stop()]);
      post({ kind: 'stopped', entrants, friendNotes, loop: loop.stop() });
    },
  };
}

let load: ReturnType<typeof startLoad> | undefined;
port.on('message', (m: ToFriends) => {
  if (m.kind === 'probe') void probe(m.n, m.ask);
  else if (m.kind === 'load') load = startLoad(m.load);
  else void (load ? load.stop() : Promise.resolve(post({ kind: 'stopped', entrants: 0, friendNotes: 0, loop: watchLoop().stop() })));
});
