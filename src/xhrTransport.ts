/** The page's transport: XMLHttpRequest, because only it reports upload progress ('Sending 40%'). */
import type { Transport } from './outbox/index.js';

const UPLOAD_TIMEOUT_MS = 120_000;

export const xhrTransport: Transport = (request, onProgress) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method ?? 'PUT', request.url);
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
    xhr.timeout = UPLOAD_TIMEOUT_MS;
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () =>
      resolve({
        status: xhr.status,
        body: xhr.responseText,
        retryAfter: xhr.getResponseHeader('Retry-After'),
        header: (name) => xhr.getResponseHeader(name),
      });
    xhr.onerror = () => reject(new Error('The upload could not reach the server.'));
    xhr.ontimeout = () => reject(new Error('The upload timed out.'));
    xhr.onabort = () => reject(new Error('The upload was stopped.'));
    xhr.send(request.body ?? null);
  });
