/**
 * Where a CPU profile's time went: `node --import tsx bench/profile.ts <file.cpuprofile | file.perf.data> [app-minutes] [rows]`
 * prints self time by package or file, by function, and inclusive time by function (V8's profile,
 * ./load/profileSummary.ts) or time under the innermost function of ours (perf's, ./load/perfProfile.ts).
 * The API-server bench writes one profile per window with BENCH_APISERVER_PROFILE=<dir>; any
 * `node --cpu-prof` profile reads the same.
 */
import { readFile } from 'node:fs/promises';
import type { CpuProfile } from './load/cpuProfiler.js';
import { perfSummary } from './load/perfProfile.js';
import { summarize, summaryText } from './load/profileSummary.js';

const [file, appMinutes, top] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --import tsx bench/profile.ts <file.cpuprofile | file.perf.data> [app-minutes] [rows]');
  process.exit(2);
}
const rows = top ? Number(top) : 30;
const summary = file.endsWith('.perf.data') ? perfSummary(file, rows) : summarize(JSON.parse(await readFile(file, 'utf8')) as CpuProfile, rows);
console.log(summaryText(summary, appMinutes ? Number(appMinutes) : undefined));
