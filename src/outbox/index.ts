/** The outbox: the one module that owns IndexedDB, shared by the recorder page and the service worker. */
export * from './codes.js';
export * from './db.js';
export * from './digest.js';
export * from './errors.js';
export * from './lock.js';
export * from './replay.js';
export * from './resume.js';
export * from './states.js';
export * from './store.js';
export * from './transport.js';
