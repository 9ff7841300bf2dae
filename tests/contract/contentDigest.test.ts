import { describe, expect, it } from 'vitest';
import { contentDigestHeader } from '../../contract/contentDigest.js';

describe('the Content-Digest header', () => {
  it('should carry the SHA-256 given in hex as base64 (RFC 9530)', () => {
    const hexOfAbc = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(contentDigestHeader(hexOfAbc)).toBe('sha-256=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:');
  });
});
