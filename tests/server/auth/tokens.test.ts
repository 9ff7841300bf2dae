import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { audioSignatureValid, signAudio } from '../../../server/auth/audio-url.js';
import { hashToken, issueAccessToken, newRefreshToken, readAccessToken } from '../../../server/auth/tokens.js';

const secret = randomBytes(32);

describe('runner access tokens', () => {
  it('round-trips the runner and session ids', async () => {
    const token = await issueAccessToken(secret, { runnerId: 'r1', sessionId: 's1' }, 60);
    expect(await readAccessToken(secret, token)).toEqual({ runnerId: 'r1', sessionId: 's1' });
  });

  it('are refused when signed with another secret, expired, or tampered with', async () => {
    const other = await issueAccessToken(randomBytes(32), { runnerId: 'r1', sessionId: 's1' }, 60);
    expect(await readAccessToken(secret, other)).toBeUndefined();
    const expired = await issueAccessToken(secret, { runnerId: 'r1', sessionId: 's1' }, -1);
    expect(await readAccessToken(secret, expired)).toBeUndefined();
    const good = await issueAccessToken(secret, { runnerId: 'r1', sessionId: 's1' }, 60);
    const [h, , s] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'r2', sid: 's1', iss: 'milenotes', aud: 'milenotes-runner-app', exp: 9e9 })).toString('base64url');
    expect(await readAccessToken(secret, `${h}.${forged}.${s}`)).toBeUndefined();
    expect(await readAccessToken(secret, 'not-a-jwt')).toBeUndefined();
  });

  describe('read again', () => {
    afterEach(() => vi.useRealTimers());

    it('are taken to the second of their expiry, and refused from it, however often read before', async () => {
      const issuedAt = Math.floor(Date.now() / 1000);
      const token = await issueAccessToken(secret, { runnerId: 'r1', sessionId: 's1' }, 60, issuedAt);
      const expiresAtMs = (issuedAt + 60) * 1000;
      expect(await readAccessToken(secret, token)).toEqual({ runnerId: 'r1', sessionId: 's1' });
      vi.useFakeTimers({ toFake: ['Date'], now: expiresAtMs - 1 });
      expect(await readAccessToken(secret, token)).toEqual({ runnerId: 'r1', sessionId: 's1' });
      vi.setSystemTime(expiresAtMs);
      expect(await readAccessToken(secret, token)).toBeUndefined();
      expect(await readAccessToken(secret, token)).toBeUndefined();
    });

    it('never open under another secret than the one that verified them', async () => {
      const token = await issueAccessToken(secret, { runnerId: 'r1', sessionId: 's1' }, 60);
      expect(await readAccessToken(secret, token)).toEqual({ runnerId: 'r1', sessionId: 's1' });
      expect(await readAccessToken(randomBytes(32), token)).toBeUndefined();
      expect(await readAccessToken(Buffer.from(secret), token)).toEqual({ runnerId: 'r1', sessionId: 's1' });
    });
  });
});

describe('refresh tokens', () => {
  it('are random and stored only as a hash', () => {
    const a = newRefreshToken();
    expect(a).not.toBe(newRefreshToken());
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(a)).not.toContain(a);
  });
});

describe('signed audio URLs', () => {
  it('are valid for their note until they expire', () => {
    const now = Date.now();
    const { expires, sig } = signAudio(secret, 'note-1', 600, now);
    expect(audioSignatureValid(secret, 'note-1', expires, sig, now)).toBe(true);
    expect(audioSignatureValid(secret, 'note-1', expires, sig, now + 601_000)).toBe(false);
  });

  it('do not open another note, survive a changed expiry, or verify under another secret', () => {
    const { expires, sig } = signAudio(secret, 'note-1', 600);
    expect(audioSignatureValid(secret, 'note-2', expires, sig)).toBe(false);
    expect(audioSignatureValid(secret, 'note-1', expires + 3600, sig)).toBe(false);
    expect(audioSignatureValid(randomBytes(32), 'note-1', expires, sig)).toBe(false);
  });
});
