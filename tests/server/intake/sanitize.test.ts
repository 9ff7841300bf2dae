import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIdOf } from '../../../server/links.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fakeWebm, makeLink, putNote } from '../support/uploads.js';

describe.each(BACKENDS)('names and types as stored on %s', (kind) => {
  let t: TestApp;
  let token: string;
  const stored = async (id: string) => (await t.app.repo.notes.ofLink(linkIdOf(token))).find((n) => n.id === id)!;

  beforeAll(async () => {
    t = await startTestApp(kind);
    token = await makeLink(t.app.repo);
  });
  afterAll(() => t.close());

  it('should strip bidi overrides, isolates and marks from a sender name, so the runner reads what was typed', async () => {
    // Every bidi control between visible letters, and a C1 control (NEL) at the end.
    const hidden = '\u202Aa\u202Bb\u202Cc\u202Dd\u202Ee\u2066f\u2067g\u2068h\u2069i\u200Ej\u200Fk\u061Cl\u0085';
    const res = await putNote(t.app, { token, body: fakeWebm(), from: `Mom ${hidden}` });
    expect(res.statusCode).toBe(201);
    expect(res.json().from).toBe('Mom abcdefghijkl');
    expect((await stored(res.json().id)).from).toBe('Mom abcdefghijkl');
  });

  it('should store a name in NFC, so the same name typed on two phones is the same text', async () => {
    const res = await putNote(t.app, { token, body: fakeWebm(), from: 'Zoe\u0301 Rene\u0301e' });
    expect(res.statusCode).toBe(201);
    expect((await stored(res.json().id)).from).toBe('Zo\u00e9 Ren\u00e9e');
  });

  it('should refuse with a sentence a name made only of invisible characters', async () => {
    const res = await putNote(t.app, { token, body: fakeWebm(), from: '\u202E\u2066\u200F' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_from', message: expect.stringMatching(/Please enter your name/) });
  });

  it('should keep only the media type and a known codec from the Content-Type', async () => {
    const cases: [string, string][] = [
      ['audio/webm;codecs=opus', 'audio/webm;codecs=opus'],
      ['audio/mp4; codecs=mp4a.40.2', 'audio/mp4;codecs=mp4a.40.2'],
      ['Audio/Ogg; codecs="opus"; name=../../etc/passwd', 'audio/ogg;codecs=opus'],
      ['audio/webm; codecs=evil<script>', 'audio/webm'],
      ['audio/mp4; charset=utf-8; x-note=hello', 'audio/mp4'],
    ];
    for (const [sent, kept] of cases) {
      const res = await putNote(t.app, { token, body: fakeWebm(), contentType: sent });
      expect(res.statusCode, sent).toBe(201);
      expect((await stored(res.json().id)).contentType, sent).toBe(kept);
    }
  });
});
