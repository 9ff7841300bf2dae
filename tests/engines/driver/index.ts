/** Starts the named engine; the scenarios know nothing else about it. */
import { launchChromium } from './chromium';
import { launchFirefox } from './firefox';
import type { Engine, EngineName, LaunchOptions } from './types';
import { launchWebKit } from './webkit';

export { BrowserGone, type Engine, type EngineName, type LaunchOptions } from './types';

export function launchEngine(name: EngineName, options: LaunchOptions): Promise<Engine> {
  switch (name) {
    case 'chromium':
      return launchChromium(options);
    case 'webkit':
      return launchWebKit(options);
    case 'firefox':
      return launchFirefox(options);
  }
}
