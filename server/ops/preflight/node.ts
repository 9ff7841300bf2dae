/** The preflight's line on Node: the one running, against package.json's "engines" (server/node-version.mjs owns both). */
import { nodeHowToGet, nodeSupported, nodeWanted } from '../../node-version.mjs';
import { fail, ok, type Finding } from './finding.js';

/** Needs no configuration: its line comes first, before the settings are read. */
export const nodeCheck = {
  name: 'node',
  async run(): Promise<Finding> {
    const { words } = nodeWanted();
    if (!nodeSupported())
      return fail(`Node ${process.versions.node} (${process.execPath}) is older than MileNotes needs (${words}).`, nodeHowToGet().replace(/\s+/g, ' '));
    return ok(`Node ${process.versions.node} (${process.execPath}); MileNotes needs ${words}.`);
  },
};
