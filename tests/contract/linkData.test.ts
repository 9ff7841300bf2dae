import { describe, expect, it } from 'vitest';
import { LINK_DATA_ID, linkDataBlock, scriptSafeJson, takeLinkData, type LinkData } from '../../contract/linkData.js';

/** A page holding one element with this id and text, as much of a document as takeLinkData reads. */
function pageWith(text: string | undefined) {
  let element: { textContent: string | null; remove(): void } | null = text === undefined ? null : { textContent: text, remove: () => void (element = null) };
  return { getElementById: (id: string) => (id === LINK_DATA_ID ? element : null), has: () => element !== null };
}

describe('the link data block', () => {
  it('writes JSON no script element can end inside, and that reads back the same', () => {
    const value = { name: '</script><script>alert(1)</script>\u2028<!-- & -->\u2029' };
    const json = scriptSafeJson(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
    expect(linkDataBlock({ status: 404, body: { error: 'link_not_found', message: 'x</script>' } })).toBe(
      `<script type="application/json" id="${LINK_DATA_ID}">{"status":404,"body":{"error":"link_not_found","message":"x\\u003c/script\\u003e"}}</script>`,
    );
  });

  it('is read once and taken out of the page', () => {
    const data: LinkData = { status: 404, body: { error: 'link_not_found', message: 'gone' } };
    const page = pageWith(scriptSafeJson(data));
    expect(takeLinkData(page)).toEqual(data);
    expect(page.has()).toBe(false);
    expect(takeLinkData(page)).toBeUndefined();
  });

  it('is nothing when the page has none, or what it has is not ours', () => {
    for (const text of [undefined, '', 'not json', '{"status":500,"body":{}}', '{"status":200}', 'null'])
      expect(takeLinkData(pageWith(text)), String(text)).toBeUndefined();
  });
});
