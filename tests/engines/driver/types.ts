/**
 * One small interface over three browser engines, so each recorder scenario is written once.
 * Everything the tests need beyond these few calls is done by script in the page (see ../support/page.ts).
 */
import { BROWSER_GONE } from '../../../scripts/engine-reruns.mjs';

export type EngineName = 'chromium' | 'webkit' | 'firefox';

export interface Engine {
  readonly name: EngineName;
  /**
   * What restart() really does in this engine. WebKitGTK's MiniBrowser keeps no storage across
   * automation sessions, so there it closes the tab and opens a new one in the same browser.
   */
  readonly restartKind: 'browser' | 'tab';
  /** Navigates the one tab and waits for its load event. */
  open(url: string): Promise<void>;
  reload(): Promise<void>;
  /** Evaluates a script expression in the page (a promise is awaited); the result must be JSON. */
  evaluate<T>(expression: string): Promise<T>;
  /** A real pointer click (through the engine's input path) on the first element matching a CSS selector. */
  click(selector: string): Promise<void>;
  /** Ends the browser and starts it again on the same profile, with one blank tab. */
  restart(): Promise<void>;
  /** Ends the browser and every process it started. Safe to call twice. */
  close(): Promise<void>;
}

/** What every engine is started with: a fake microphone that needs no prompt, and a profile folder. */
export interface LaunchOptions {
  profileDir: string;
  /** A speech WAV for Chromium's fake microphone; the other engines' fake devices play a tone. */
  wav: string;
}

/** Waits for a process to exit, or rejects with `message` after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The browser stopped answering its driver under the test: a process of it ended or crashed (WebKit
 * ends its automation session when its network process does), or a navigation never ended and the
 * page then ran no script. Waiting on the page again cannot help, and the scenario proved nothing
 * either way. npm test knows it by the message's first words.
 */
export class BrowserGone extends Error {
  override name = 'BrowserGone';
  constructor(detail: string) {
    super(`${BROWSER_GONE}: ${detail}`);
  }
}
