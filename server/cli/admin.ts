/** `npm run admin -- <command>`: the operator CLI (./run-admin.ts) in this process, on its environment. */
import { runAdmin } from './run-admin.js';

process.exitCode = await runAdmin(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  terminal: process.stdout.isTTY === true,
});
