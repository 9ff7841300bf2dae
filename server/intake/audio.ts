/**
 * Streaming a note's bytes into the blob store, whichever way they come: judged as audio by their
 * first bytes (when they are the note's first), capped, hashed; the one place where what goes
 * wrong in a body becomes the sender's refusal.
 */
import { finished, type Readable } from 'node:stream';
import { AudioSniffer, NotAudioError, type AudioContainer } from '../audio/sniff.js';
import { refusal } from '../http/refusals.js';
import { BlobTooLargeError, type BlobStore, type PutResult } from '../storage/blob-store.js';

export interface AudioTarget {
  key: string;
  maxBytes: number;
  contentType: string;
  /** The body starts the note: its first bytes must be a recording (WebM, Ogg, MP4). */
  sniff: boolean;
  /** Which limit `maxBytes` is, for the sentence: the note's, or what is left of it for one append. */
  limit: 'note' | 'part';
}

export interface StoredAudio extends PutResult {
  /** The container the first bytes named, when they were sniffed. */
  container?: AudioContainer;
}

/**
 * Resolves once the body is durable under `target.key`. Rejects with too_large or not_audio, or
 * with the body's own error (a connection cut mid-body) or the store's (ours, a 5xx).
 */
export async function storeAudio(blobs: BlobStore, body: Readable, target: AudioTarget): Promise<StoredAudio> {
  let stream = body;
  const sniffer = target.sniff ? new AudioSniffer() : undefined;
  if (sniffer) {
    // finished() also reports a connection that closed mid-body (idle timeout, client gone), which
    // emits no 'error' on the request: without it the store would wait for the rest for ever.
    finished(body, (err) => {
      if (err) sniffer.destroy(err);
    });
    // The sniffer may fail before the store attaches to it; the store still sees it errored.
    sniffer.on('error', () => {});
    stream = body.pipe(sniffer);
  }
  try {
    const stored = await blobs.put(target.key, stream, { maxBytes: target.maxBytes, contentType: target.contentType });
    return { ...stored, container: sniffer?.container };
  } catch (thrown) {
    const err = sniffer?.errored ?? thrown;
    if (err instanceof BlobTooLargeError) throw refusal.too_large(target.limit);
    if (err instanceof NotAudioError) throw refusal.not_audio(err.empty);
    throw err;
  }
}
