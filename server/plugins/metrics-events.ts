/** The counters the background work reports to: conversion outcomes (server/conversion) and pushes (server/push). */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ConversionEvents } from '../conversion/worker.js';
import type { PushEvents } from '../push/index.js';

/** `storageFaults`: the counter requests count theirs in too, by `during`. */
export function conversionEvents(registry: Registry, storageFaults: Counter): ConversionEvents {
  const conversions = new Histogram({
    name: 'milenotes_conversion_duration_seconds',
    help: 'Time to convert one note to M4A and store it, in this process.',
    buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const conversionFailures = new Counter({
    name: 'milenotes_conversion_failures_total',
    help: 'Failed conversion attempts: unplayable (the audio), error (retried), gave_up (last attempt).',
    labelNames: ['kind'],
    registers: [registry],
  });

  return {
    converted: (seconds) => conversions.observe(seconds),
    failed: (kind) => conversionFailures.inc({ kind }),
    storageFault: (kind) => storageFaults.inc({ kind, during: 'conversion' }),
  };
}

export function pushEvents(registry: Registry): PushEvents {
  const pushSent = new Counter({
    name: 'milenotes_push_sent_total',
    help: 'Pushes a push service accepted (a heard note, a marker alert).',
    registers: [registry],
  });
  const pushFailed = new Counter({
    name: 'milenotes_push_failed_total',
    help: 'Pushes dropped unsent: refused_host (not on PUSH_HOSTS), rejected (the service refused it), gave_up (retries spent), expired (stale before it went).',
    labelNames: ['reason'],
    registers: [registry],
  });
  const pushGone = new Counter({
    name: 'milenotes_push_gone_total',
    help: 'Subscriptions the push service said are gone (404/410), forgotten.',
    registers: [registry],
  });
  return {
    sent: () => pushSent.inc(),
    failed: (reason) => pushFailed.inc({ reason }),
    gone: () => pushGone.inc(),
  };
}
