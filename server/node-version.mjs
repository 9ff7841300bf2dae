// Owns which Node MileNotes runs on: package.json's "engines" (read here, written nowhere else),
// and what is said to someone running an older one. Plain JavaScript that any Node can parse: it
// runs before anything else is loaded (scripts/require-node.mjs), since on an older Node better-sqlite3
// does not refuse, it dies of a segmentation fault without a word (Node 20).
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The versions package.json asks for ('>=22.14.0'), and the lowest one as numbers. */
export function nodeWanted() {
  const range = String(pkg.engines?.node || '').trim();
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range);
  // The one form read here; another (a ^ or an ||) would need a real semver reader.
  if (!match) throw new Error(`package.json "engines.node" must read ">=X.Y.Z" (server/node-version.mjs reads it), not "${range}"`);
  const lowest = [Number(match[1]), Number(match[2] || 0), Number(match[3] || 0)];
  return { range, lowest, words: `Node ${lowest[0]}${lowest[1] || lowest[2] ? `.${lowest[1]}` : ''}${lowest[2] ? `.${lowest[2]}` : ''} or newer` };
}

/** Whether `version` ('20.20.2') is one package.json accepts. */
export function nodeSupported(version = process.versions.node) {
  const have = version
    .replace(/^v/, '')
    .split('.')
    .map((part) => parseInt(part, 10) || 0);
  const { lowest } = nodeWanted();
  for (let i = 0; i < 3; i++) {
    if ((have[i] || 0) !== lowest[i]) return (have[i] || 0) > lowest[i];
  }
  return true;
}

/** How the running command was started, as its user typed it: `npm start`, `npm run admin`, or the script itself. */
function commandName() {
  const event = process.env.npm_lifecycle_event;
  if (event) return ['start', 'test'].includes(event) ? `npm ${event}` : `npm run ${event}`;
  return `node ${process.argv[1] || ''}`.trim();
}

/** How to get a Node that will do, in a few lines; `again` names the command to run once it is there. */
export function nodeHowToGet(again = '') {
  const here =
    process.platform === 'linux' && process.arch === 'x64'
      ? '\n  in this shell: `source scripts/node24.sh` (fetches Node 24 from the npm registry into .tools/; a new terminal needs it again), or'
      : '';
  return (
    `Get Node 24 (the long-term-support line, what CI runs):${here}` +
    '\n  install it: https://nodejs.org/en/download or `nvm install 24`;' +
    `\n  then \`npm ci\`, so its native modules are built for that Node${again ? `, and \`${again}\` again` : ''}.`
  );
}

/** What to tell someone running `version`: why it stops, which Node it needs, how to get it; undefined when it is supported. */
export function nodeRefusal(version = process.versions.node) {
  if (nodeSupported(version)) return undefined;
  const { words, range } = nodeWanted();
  return (
    `MileNotes needs ${words} (package.json "engines": "${range}"); this is Node ${version.replace(/^v/, '')} (${process.execPath}).\n` +
    `${commandName()} stops here, before loading what needs the newer Node (on an older one the database driver, better-sqlite3, crashes without a word).\n` +
    `${nodeHowToGet(commandName())}\n`
  );
}
