import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { audioSignatureValid, signAudio } from '../../../server/auth/audio-url.js';
import { APPLE_JWKS_DEFAULT, DEV_SECRET_FILE, loadAuthConfig } from '../../../server/config/auth.js';
import { issueAccessToken, readAccessToken } from '../../../server/auth/tokens.js';

describe('runner auth settings', () => {
  it('should default to Apple’s JWKS, 15-minute access tokens and 10-minute audio URLs', () => {
    const config = loadAuthConfig({});
    expect(config.appleJwksUrl).toBe(APPLE_JWKS_DEFAULT);
    expect(config.accessTtlSeconds).toBe(900);
    expect(config.audioUrlTtlSeconds).toBe(600);
    expect(config.refreshGraceSeconds).toBe(60);
    expect(config.ephemeralSecret).toBe(true);
  });

  it('should use SESSION_SECRET so every server signs alike, and refuse a short one', () => {
    const secret = 'x'.repeat(40);
    expect(Buffer.from(loadAuthConfig({ SESSION_SECRET: secret }).sessionSecret).toString()).toBe(secret);
    expect(() => loadAuthConfig({ SESSION_SECRET: 'short' })).toThrow(/at least 32 characters/);
  });

  it('should refuse to start in production without SESSION_SECRET or APPLE_AUDIENCE', () => {
    expect(() => loadAuthConfig({ NODE_ENV: 'production', APPLE_AUDIENCE: 'com.milenotes.app' })).toThrow(/SESSION_SECRET is required/);
    expect(() => loadAuthConfig({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40) })).toThrow(/APPLE_AUDIENCE is required/);
    expect(loadAuthConfig({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40), APPLE_AUDIENCE: 'com.milenotes.app' }).ephemeralSecret).toBe(false);
  });
});

describe('the development secret kept in DATA_DIR', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'milenotes-secret-')), 'data');
    dirs.push(path.dirname(dir));
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('should make a secret once, readable only by its owner, and sign alike after a restart', async () => {
    const dataDir = freshDir();
    const first = loadAuthConfig({}, dataDir);
    expect(first.ephemeralSecret).toBe(false);
    expect(statSync(path.join(dataDir, DEV_SECRET_FILE)).mode & 0o777).toBe(0o600);

    const restarted = loadAuthConfig({}, dataDir);
    expect(Buffer.from(restarted.sessionSecret)).toEqual(Buffer.from(first.sessionSecret));
    const token = await issueAccessToken(first.sessionSecret, { runnerId: 'r1', sessionId: 's1' }, 60);
    expect(await readAccessToken(restarted.sessionSecret, token)).toEqual({ runnerId: 'r1', sessionId: 's1' });
    const { expires, sig } = signAudio(first.sessionSecret, 'note-1', 60);
    expect(audioSignatureValid(restarted.sessionSecret, 'note-1', expires, sig)).toBe(true);
  });

  it('should give each DATA_DIR its own secret', () => {
    const a = loadAuthConfig({}, freshDir());
    const b = loadAuthConfig({}, freshDir());
    expect(Buffer.from(a.sessionSecret)).not.toEqual(Buffer.from(b.sessionSecret));
  });

  it('should prefer SESSION_SECRET and write nothing when it is set', () => {
    const dataDir = freshDir();
    const secret = 'y'.repeat(40);
    expect(Buffer.from(loadAuthConfig({ SESSION_SECRET: secret }, dataDir).sessionSecret).toString()).toBe(secret);
    expect(existsSync(path.join(dataDir, DEV_SECRET_FILE))).toBe(false);
  });

  it('should still refuse production without SESSION_SECRET, and make no file for it', () => {
    const dataDir = freshDir();
    expect(() => loadAuthConfig({ NODE_ENV: 'production', APPLE_AUDIENCE: 'com.milenotes.app' }, dataDir)).toThrow(/SESSION_SECRET is required/);
    expect(existsSync(path.join(dataDir, DEV_SECRET_FILE))).toBe(false);
  });
});
