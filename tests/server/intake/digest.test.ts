import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentDigestHeader } from '../../../contract/contentDigest.js';
import { sha256FromContentDigest } from '../../../server/intake/digest.js';

describe('reading Content-Digest', () => {
  it('should read back the hex SHA-256 the page and the tests write with contentDigestHeader', () => {
    const hex = createHash('sha256').update('a note').digest('hex');
    expect(sha256FromContentDigest(contentDigestHeader(hex))).toBe(hex);
  });
});
