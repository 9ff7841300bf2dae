/**
 * The preflight's checks after the Node and the settings (./run.ts prints those first), in the order
 * their lines are printed. A feature that needs something of the server adds its check here: one
 * module beside these, a PreflightCheck (./finding.ts) whose line says OK or what is wrong and how to
 * fix it, e.g. the push keys when push is on.
 */
import { appleCheck } from './apple.js';
import { blobStoreCheck } from './blob-store.js';
import { clockCheck } from './clock.js';
import { databaseCheck } from './database.js';
import { diskCheck } from './disk.js';
import { ffmpegCheck } from './ffmpeg.js';
import type { PreflightCheck } from './finding.js';
import { publicUrlCheck } from './public-url.js';
import { pushCheck } from './push.js';

export const PREFLIGHT_CHECKS: readonly PreflightCheck[] = [
  databaseCheck,
  clockCheck,
  blobStoreCheck,
  diskCheck,
  ffmpegCheck,
  publicUrlCheck,
  appleCheck,
  pushCheck,
];
