/** Conditional requests, one reading for every answer with an ETag (the notes list, a course, audio). */

/** If-None-Match: `*` or a list of tags, compared weakly (RFC 9110, 13.1.2). */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
