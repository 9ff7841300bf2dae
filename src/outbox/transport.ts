/** How an uploader talks to the server: one request of a note's upload, and the fetch transport the service worker uses. */

export interface UploadRequest {
  /** PUT when absent; HEAD and PATCH resume an upload. */
  method?: 'PUT' | 'HEAD' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body?: ArrayBuffer;
}

export interface UploadResponse {
  status: number;
  /** Response text; the server sends JSON { error, message } for errors. */
  body: string;
  retryAfter: string | null;
  /** Any response header (Upload-Offset, Upload-Complete), null when absent. */
  header?: (name: string) => string | null;
}

/** Sends one request of a note's upload. Rejects only when no answer came back (network down, aborted). */
export type Transport = (request: UploadRequest, onProgress?: (fraction: number) => void) => Promise<UploadResponse>;

/** The fetch transport, used by the service worker (and anything without XMLHttpRequest). */
export const fetchTransport: Transport = async (request) => {
  const response = await fetch(request.url, {
    method: request.method ?? 'PUT',
    headers: request.headers,
    body: request.body,
    credentials: 'same-origin',
    cache: 'no-store',
  });
  return {
    status: response.status,
    body: await response.text(),
    retryAfter: response.headers.get('Retry-After'),
    header: (name) => response.headers.get(name),
  };
};
