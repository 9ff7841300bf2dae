import { describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../../../server/config/auth.js';
import { loadConfig } from '../../../server/config/index.js';
import { loadPushConfig } from '../../../server/config/push.js';

describe('a number read from the environment', () => {
  it('should take the default when unset or empty, and the number when given', () => {
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '' }).rateLimitPerMinute).toBe(120);
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '7' }).rateLimitPerMinute).toBe(7);
    expect(loadPushConfig({ PUSH_MAX_PER_PHONE: '3' }, 'http://localhost:8080').limits.perPhone).toBe(3);
    expect(loadAuthConfig({ REFRESH_GRACE_SECONDS: '0' }).refreshGraceSeconds).toBe(0);
  });

  it('should refuse a count that is not a positive whole number, naming the setting and the value', () => {
    for (const bad of ['0', '-3', '1.5', 'ten', '1e400']) {
      expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: bad })).toThrow(`RATE_LIMIT_PER_MINUTE must be a positive whole number, got '${bad}'`);
      expect(() => loadPushConfig({ PUSH_MAX_PER_LINK: bad }, 'http://localhost:8080')).toThrow(
        `PUSH_MAX_PER_LINK must be a positive whole number, got '${bad}'`,
      );
    }
  });

  it('should refuse seconds that are not a whole number, 0 allowed', () => {
    for (const bad of ['-1', '2.5', 'soon']) {
      expect(() => loadAuthConfig({ ACCESS_TOKEN_TTL_SECONDS: bad })).toThrow(`ACCESS_TOKEN_TTL_SECONDS must be a whole number of seconds, got '${bad}'`);
    }
  });
});
