/**
 * /r/:token's first script: loaded before anything else on the page, it makes Record work on the
 * screen the server drew (./screen.ts). React and the rest come after, by the shell's own script
 * (src/main.ts). The recorder's stylesheet is the first screen's: the build puts it into r.html
 * (scripts/build.mjs), so the screen is drawn styled from its HTML alone, offline too.
 */
import '../recorder/recorder.css';
import { runFirstScreen } from './screen';

runFirstScreen();
