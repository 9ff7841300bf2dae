/**
 * Reads GPX from stdin with readGpx and prints the outcome as JSON, so a test can run the reader in
 * a process of its own, with a heap limit and a deadline that a hung or runaway parser cannot escape.
 */
import { readGpx } from '../../../server/races/gpx.js';
import { CourseRefused } from '../../../server/races/refused.js';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
try {
  const line = readGpx(Buffer.concat(chunks));
  process.stdout.write(JSON.stringify({ points: line.coordinates.length }));
} catch (err) {
  if (!(err instanceof CourseRefused)) throw err;
  process.stdout.write(JSON.stringify({ problem: err.problem, message: err.message }));
}
