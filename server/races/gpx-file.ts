/** Reads an operator's GPX file from disk, never more than a course may be, whatever the path names. */
import { type FileHandle, open } from 'node:fs/promises';
import { MAX_GPX_BYTES, tooLarge } from './gpx.js';
import { CourseRefused } from './refused.js';

/**
 * The file's bytes, read in chunks up to one byte past MAX_GPX_BYTES: a file that is larger is
 * left for readGpx to refuse by its size, and one that never ends (a device, a pipe) is not
 * read to its end. A path that cannot be read is a sentence, not a stack trace.
 */
export async function readGpxFile(path: string): Promise<Uint8Array> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'there is no such file' : code === 'EACCES' ? 'this user may not read it' : code === 'EISDIR' ? 'it is a folder' : String(code);
    throw new CourseRefused('unreadable', `Cannot read this file: ${why}. Give the path of the course's .gpx file.`);
  }
  try {
    const limit = MAX_GPX_BYTES + 1;
    const buffer = Buffer.alloc(limit);
    let filled = 0;
    while (filled < limit) {
      const { bytesRead } = await file.read(buffer, filled, limit - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled === limit) {
      // A device or a pipe has no size: it is at least as large as what was read.
      throw tooLarge(Math.max((await file.stat()).size, limit));
    }
    return buffer.subarray(0, filled);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') {
      throw new CourseRefused('unreadable', "Cannot read this file: it is a folder. Give the path of the course's .gpx file.");
    }
    throw err;
  } finally {
    await file.close();
  }
}
