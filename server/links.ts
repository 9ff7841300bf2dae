/** Link tokens: made here, and stored only as a hash so a leaked database reveals no working link. */
import { createHash, randomBytes } from 'node:crypto';

/** 24 random bytes = 192 bits, 32 URL-safe characters. */
export const newToken = (): string => randomBytes(24).toString('base64url');

export const linkIdOf = (token: string): string => createHash('sha256').update(token).digest('hex');
