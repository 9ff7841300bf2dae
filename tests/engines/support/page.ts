/**
 * The page as a scenario sees it, over any engine: find by accessible name or label, click,
 * fill, wait for a state, and read the outbox from IndexedDB, all through script in the page.
 */
import { createHash } from 'node:crypto';
import { BrowserGone, type Engine } from '../driver';

/** How often a wait looks at the page again; waits end on the state, never on time alone. */
const POLL_MS = 150;

export class EnginePage {
  private clicks = 0;
  constructor(readonly engine: Engine) {}

  /** Runs a self-contained function in the page with JSON arguments. */
  run<T, A extends unknown[]>(fn: (...args: A) => T | Promise<T>, ...args: A): Promise<Awaited<T>> {
    return this.engine.evaluate<Awaited<T>>(`(${fn.toString()})(...${JSON.stringify(args)})`);
  }

  /**
   * Polls `fn` in the page until it returns something truthy; fails saying what it waited for and
   * what it last saw. `fn` may return { pending: what it saw } to keep waiting and say why.
   */
  async waitFor<T, A extends unknown[]>(what: string, timeoutMs: number, fn: (...args: A) => T | Promise<T>, ...args: A): Promise<Awaited<T>> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        last = await this.run(fn, ...args);
        if (last && typeof last === 'object' && 'pending' in last) last = (last as { pending: unknown }).pending;
        else if (last) {
          if (process.env.ENGINES_DEBUG) console.log(`[${this.engine.name}] ${what}: ${Date.now() - started} ms`);
          return last as Awaited<T>;
        }
      } catch (error) {
        if (error instanceof BrowserGone) throw error;
        // A page between two documents (reload, navigation) cannot answer: look again.
        last = error instanceof Error ? error.message : error;
      }
      if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}; last seen: ${JSON.stringify(last)}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Waits until the texts of every [data-testid=testId] equal `expected`, in order. */
  async waitForTexts(testId: string, expected: string[], timeoutMs = 15_000): Promise<void> {
    await this.waitFor(
      `${testId} to read ${JSON.stringify(expected)}`,
      timeoutMs,
      (id, want) => {
        const got = [...document.querySelectorAll(`[data-testid="${id}"]`)].map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim());
        const status = document.querySelector('[data-testid="status-line"]')?.textContent;
        return JSON.stringify(got) === JSON.stringify(want) ? got : { pending: { [id]: got, status } };
      },
      testId,
      expected,
    );
  }

  /** The text of the first [data-testid=testId], whitespace collapsed, or null. */
  text(testId: string): Promise<string | null> {
    return this.run((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.replace(/\s+/g, ' ').trim() ?? null, testId);
  }

  /** Waits for an enabled button or link whose accessible name is `name`, and clicks it for real. */
  async click(name: string, timeoutMs = 10_000): Promise<void> {
    const mark = `c${++this.clicks}`;
    await this.waitFor(
      `an enabled button named '${name}'`,
      timeoutMs,
      (wanted, id) => {
        const nameOf = (e: Element) => (e.getAttribute('aria-label') ?? e.textContent ?? '').replace(/\s+/g, ' ').trim();
        const found = [...document.querySelectorAll('button, a, [role="button"]')].find(
          (e) => nameOf(e) === wanted && !(e as HTMLButtonElement).disabled && (e as HTMLElement).offsetParent !== null,
        );
        found?.setAttribute('data-engine-click', id);
        return Boolean(found);
      },
      name,
      mark,
    );
    await this.engine.click(`[data-engine-click="${mark}"]`);
  }

  /** Types into the text field labelled `label` the way React hears it (the native setter, then 'input'). */
  async fill(label: string, value: string): Promise<void> {
    await this.waitFor(
      `a field labelled '${label}'`,
      10_000,
      (wanted, text) => {
        const field = fieldLabelled(wanted) as HTMLInputElement | null;
        if (!field) return false;
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(field, text);
        field.dispatchEvent(new Event('input', { bubbles: true }));
        return true;
        function fieldLabelled(name: string) {
          const label = [...document.querySelectorAll('label')].find(
            (l) => l.querySelector('span')?.textContent?.trim() === name || l.textContent?.trim() === name,
          );
          return label ? (label.control ?? label.querySelector('input, select, textarea')) : null;
        }
      },
      label,
      value,
    );
  }

  /** Chooses the option whose text is `option` in the select labelled `label`. */
  async select(label: string, option: string): Promise<void> {
    await this.waitFor(
      `an option '${option}' in '${label}'`,
      10_000,
      (wanted, text) => {
        const label = [...document.querySelectorAll('label')].find((l) => l.querySelector('span')?.textContent?.trim() === wanted);
        const select = label?.querySelector('select');
        const choice = select && [...select.options].find((o) => o.text.trim() === text);
        if (!select || !choice) return false;
        Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!.set!.call(select, choice.value);
        select.dispatchEvent(new Event('change', { bubbles: true }));
        return true;
      },
      label,
      option,
    );
  }

  /** The outbox's note records (audio left out), read straight from the page's IndexedDB. */
  outboxNotes(): Promise<Array<{ id: string; state: string; attempts: number; contentType: string; bytes: number; sha256: string; durationMs: number }>> {
    return this.run(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('milenotes');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      try {
        return await new Promise<
          Array<{ id: string; state: string; attempts: number; contentType: string; bytes: number; sha256: string; durationMs: number }>
        >((resolve, reject) => {
          const all = db.transaction('notes').objectStore('notes').getAll();
          all.onsuccess = () =>
            resolve(
              all.result.map(({ id, state, attempts, contentType, bytes, sha256, durationMs }) => ({
                id,
                state,
                attempts,
                contentType,
                bytes,
                sha256,
                durationMs,
              })),
            );
          all.onerror = () => reject(all.error);
        });
      } finally {
        db.close();
      }
    });
  }

  /** SHA-256 of a note's audio as the page's outbox keeps it (read from IndexedDB, hashed here). */
  async outboxAudioSha256(noteId: string): Promise<string> {
    const base64 = await this.run(async (id) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('milenotes');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      try {
        const record = await new Promise<{ data: ArrayBuffer }>((resolve, reject) => {
          const get = db.transaction('audio').objectStore('audio').get(id);
          get.onsuccess = () => resolve(get.result as { data: ArrayBuffer });
          get.onerror = () => reject(get.error);
        });
        let binary = '';
        for (const byte of new Uint8Array(record.data)) binary += String.fromCharCode(byte);
        return btoa(binary);
      } finally {
        db.close();
      }
    }, noteId);
    return createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex');
  }
}
