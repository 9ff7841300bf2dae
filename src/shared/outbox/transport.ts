/** The fetch transport, used by the service worker (and anything without XMLHttpRequest). */
import type { Transport } from './replay.js';

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
