// Stops a throwaway PostgreSQL cluster and removes its folder once the process that started it ends
// without having done so (kit/postgres.ts starts one guard per cluster). PostgreSQL runs in a session
// of its own (pg_ctl), so a test run stopped by Ctrl-C or a signal, or killed, would leave it running.
// The guard waits for its stdin to close, which happens however its owner ends; a line on stdin
// first means the owner removed the cluster itself. It ignores the signals a stopped run sends to
// its process group, so it outlives its owner long enough to clean up; plain JavaScript, no tsx.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';

const { dir, dataDir, pgBin, asRoot } = JSON.parse(process.argv[2]);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});

let released = false;
process.stdin.on('data', () => {
  released = true;
});
process.stdin.on('end', () => {
  if (!released) {
    const pgCtl = path.join(pgBin, 'pg_ctl');
    const args = ['-D', dataDir, '-m', 'immediate', '-w', 'stop'];
    // As kit/postgres.ts runs it: PostgreSQL refuses root. A cluster already stopped is no matter.
    spawnSync(asRoot ? 'runuser' : pgCtl, asRoot ? ['-u', 'postgres', '--', pgCtl, ...args] : args, { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
});
process.stdin.resume();
