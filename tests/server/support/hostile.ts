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
