/**
 * `npm run admin -- check`, the preflight: runs on a server's own configuration and says, one line
 * each, OK or what is wrong and how to fix it. Exit code 0 when nothing failed (warnings allowed),
 * 1 when anything did, so a deploy can gate on it.
 */
import { loadConfig } from '../../config/index.js';
import { PREFLIGHT_CHECKS } from './checks.js';
import { openPreflightContext } from './context.js';
import { fail, ok, reasonOf, warn, type Finding, type PreflightCheck, type PreflightContext } from './finding.js';
import { nodeCheck } from './node.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const LABEL = { ok: 'OK', warn: 'WARN', fail: 'FAIL' } as const;

function line(name: string, finding: Finding): string {
  return `${LABEL[finding.verdict].padEnd(4)}  ${name.padEnd(14)} ${finding.says}${finding.fix ? ` Fix: ${finding.fix}` : ''}\n`;
}

/** One check's finding: a check that throws or takes too long has failed, and says so. */
async function findingOf(check: PreflightCheck, ctx: PreflightContext): Promise<Finding> {
  const timeoutMs = check.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Finding>((resolve) => {
    timer = setTimeout(
      () => resolve(fail(`no answer within ${timeoutMs / 1000} s.`, 'see what it waits on: a store, a database or a host that does not answer.')),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([check.run(ctx), late]);
  } catch (err) {
    return fail(`the check itself failed: ${reasonOf(err)}.`, 'report it with this line; the other lines still hold.');
  } finally {
    clearTimeout(timer);
  }
}

/** The settings line: the server's configuration as it reads it, or why it cannot. */
function settingsOf(env: NodeJS.ProcessEnv): { finding: Finding; config?: ReturnType<typeof loadConfig> } {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (err) {
    return { finding: fail(`the server would not start: ${reasonOf(err)}.`, 'correct that setting (.env.example says what each one takes).') };
  }
  const where = `NODE_ENV=${env.NODE_ENV || '(unset)'}, PORT ${config.port}, ${config.databaseUrl ? 'PostgreSQL' : 'SQLite'}, audio ${config.s3 ? 'in S3' : 'on disk'}, DATA_DIR ${config.dataDir}`;
  if (!env.SESSION_SECRET) {
    return {
      config,
      finding: warn(
        `${where}; SESSION_SECRET is not set, so sign-ins and audio URLs are signed with a secret kept in DATA_DIR that only this server has.`,
        'set SESSION_SECRET (openssl rand -base64 48), the same on every server.',
      ),
    };
  }
  return { config, finding: ok(`${where}.`) };
}

export async function runPreflight(env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  const findings: Finding[] = [];
  const report = (name: string, finding: Finding) => {
    findings.push(finding);
    out(line(name, finding));
  };
  report(nodeCheck.name, await nodeCheck.run());
  const { finding, config } = settingsOf(env);
  report('settings', finding);
  if (config) {
    const ctx = openPreflightContext(env, config);
    try {
      for (const check of PREFLIGHT_CHECKS) report(check.name, await findingOf(check, ctx));
    } finally {
      await ctx.close();
    }
  }
  const failed = findings.filter((f) => f.verdict === 'fail').length;
  const warned = findings.filter((f) => f.verdict === 'warn').length;
  const counts = `${findings.length} checks: ${findings.length - failed - warned} OK, ${warned} to look at, ${failed} failed`;
  out(failed > 0 ? `\n${counts}. Not ready for race weekend: fix what failed, then run this again.\n` : `\n${counts}. Ready for race weekend.\n`);
  return failed > 0 ? 1 : 0;
}
