/**
 * Section "firstvisit": the first visit to a link as a friend on one bar meets it. Chromium with its
 * CPU slowed 4x and a fresh profile each visit, through a TCP-level model of the bar
 * (stand-ins/badNetwork/link.ts: a round trip to open each connection, half of it each way, one shared
 * pipe) to a TLS front (../tlsFront.ts) speaking HTTP/2, or HTTP/1.1 only for comparison. This
 * checkout against a base commit (BENCH_BASE) built and served by its own checkout, visits
 * alternated; the DevTools-throttled figure of the pages section beside it as a secondary row.
 */
import { ONE_BAR } from '../../stand-ins/badNetwork/index.js';
import type { Row, Section } from '../report.js';
import { type Protocols, startTlsFront } from '../tlsFront.js';
import { type Side, startBase } from './baseCheckout.js';
import { median, type BenchContext } from './context.js';
import { PROFILES, timeToRecord, workerFirstVisit } from './firstVisit.js';
import { type LinkVisit, visitThroughLink } from './linkVisit.js';

/** The main before the recorder's first screen moved into the HTML. */
const DEFAULT_BASE = 'fab6086';
const CPU_SLOWDOWN = 4;
const PROTOCOLS: Array<{ id: Protocols; label: string; negotiated: string }> = [
  { id: 'h2', label: 'HTTP/2', negotiated: 'h2' },
  { id: 'h1', label: 'HTTP/1.1 only', negotiated: 'http/1.1' },
];
/** The aims a first visit is held to, on HTTP/2. */
const AIM = { ratio: 1.5, kb: 30, recordMs: 2500 };
/** DevTools' form of the same bar: the pages section's slow venue profile. */
const DEVTOOLS_PROFILE = PROFILES.find((p) => p.latencyMs === 400)!;

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

interface Figures {
  htmlMs: number;
  recordMs: number;
  ratio: number;
  kb: number;
  downKb: number;
  connections: number;
}

/** Medians over a side's visits; the ratio is each visit's own, then their median. */
function figures(visits: LinkVisit[]): Figures {
  return {
    htmlMs: median(visits.map((v) => v.htmlMs)),
    recordMs: median(visits.map((v) => v.recordMs)),
    ratio: median(visits.map((v) => v.recordMs / v.htmlMs)),
    kb: median(visits.map((v) => v.bytesUntilRecord / 1024)),
    downKb: median(visits.map((v) => v.bytesDownUntilRecord / 1024)),
    connections: median(visits.map((v) => v.connections)),
  };
}

const verdict = (met: boolean) => (met ? 'meets it' : 'short');

/** The four rows of one protocol: ours against the base where there is one, aims on HTTP/2. */
function protocolRows(label: string, ours: Figures, base: Figures | undefined, baseLabel: string, withAims: boolean): Row[] {
  const aim = (text: string, met: (f: Figures) => boolean) =>
    withAims ? { aim: { text: `${text}${base ? ` (${baseLabel}: ${verdict(met(base))})` : ''}`, met: met(ours) } } : {};
  const prefix = `/r/ first visit over HTTPS, ${label}, one bar`;
  return [
    { metric: `${prefix}: the HTML has arrived`, ours: ours.htmlMs, baseline: base?.htmlMs ?? null, unit: 'ms', digits: 0 },
    {
      metric: `${prefix}: Record works`,
      ours: ours.recordMs,
      baseline: base?.recordMs ?? null,
      unit: 'ms',
      digits: 0,
      ...aim(`< ${AIM.recordMs} ms`, (f) => f.recordMs < AIM.recordMs),
    },
    {
      metric: `${prefix}: Record works / the HTML's own time`,
      ours: ours.ratio,
      baseline: base?.ratio ?? null,
      unit: 'x',
      digits: 2,
      ...aim(`<= ${AIM.ratio}x`, (f) => f.ratio <= AIM.ratio),
    },
    {
      metric: `${prefix}: bytes on the wire until Record works (both ways)`,
      ours: ours.kb,
      baseline: base?.kb ?? null,
      unit: 'KB',
      ...aim(`<= ${AIM.kb} KB`, (f) => f.kb <= AIM.kb),
    },
  ];
}

/** Every side's first visits through the link, on each protocol, sides and protocols alternated within each round. */
async function visitsThroughLink(ctx: BenchContext, sides: Side[], runs: number): Promise<Map<string, LinkVisit[]>> {
  const visits = new Map<string, LinkVisit[]>(sides.flatMap((s) => PROTOCOLS.map((p) => [`${s.label}|${p.id}`, []] as [string, LinkVisit[]])));
  let step = Date.now();
  const routes = sides.flatMap((s) => PROTOCOLS.map((p) => ({ upstreamPort: s.server.port, protocols: p.id })));
  const front = await startTlsFront(routes);
  ctx.log(`firstvisit: Caddy up with ${routes.length} TLS listeners in ${seconds(step)}`);
  try {
    for (let round = 1; round <= runs; round++) {
      for (const [p, protocol] of PROTOCOLS.entries()) {
        for (const [s, side] of sides.entries()) {
          step = Date.now();
          const port = front.ports[s * PROTOCOLS.length + p]!;
          const visit = await visitThroughLink(front, port, `/r/${side.token}`, ONE_BAR, { cpuSlowdown: CPU_SLOWDOWN, expect: protocol.negotiated });
          visits.get(`${side.label}|${protocol.id}`)!.push(visit);
          ctx.log(
            `firstvisit: ${protocol.label}, ${side.label}, visit ${round}/${runs}: HTML ${Math.round(visit.htmlMs)} ms, Record ${Math.round(visit.recordMs)} ms, ` +
              `${(visit.bytesUntilRecord / 1024).toFixed(1)} KB, ${visit.connections} connection(s) (${seconds(step)})`,
          );
        }
      }
    }
  } finally {
    await front.stop();
  }
  return visits;
}

/** The secondary figures on plain HTTP: Record works under DevTools throttling, and the worker's first-visit downloads. */
async function plainHttpFigures(ctx: BenchContext, sides: Side[], runs: number) {
  const devtools = new Map<string, number[]>(sides.map((s) => [s.label, []]));
  const worker: Record<string, { kb: number; requests: number }> = {};
  for (let round = 1; round <= runs; round++) {
    for (const side of sides) {
      const step = Date.now();
      const ms = await timeToRecord(`${side.server.url}/r/${side.token}`, DEVTOOLS_PROFILE);
      devtools.get(side.label)!.push(ms);
      ctx.log(`firstvisit: DevTools throttling, ${side.label}, visit ${round}/${runs}: Record ${Math.round(ms)} ms (${seconds(step)})`);
    }
  }
  for (const side of sides) {
    const step = Date.now();
    worker[side.label] = await workerFirstVisit(`${side.server.url}/r/${side.token}`);
    ctx.log(`firstvisit: the service worker's first-visit downloads, ${side.label} (${seconds(step)})`);
  }
  return { devtools, worker };
}

export async function firstVisitLinkSection(ctx: BenchContext): Promise<Section> {
  const commit = process.env.BENCH_BASE ?? DEFAULT_BASE;
  // The smoke run proves the machinery (link, TLS front, both protocols, the page's report): one
  // visit each, no base checkout to build, no DevTools row (the pages section has it).
  const runs = ctx.smoke ? 1 : Math.max(3, Number(process.env.BENCH_AB_RUNS ?? 5));
  const ours: Side = { label: 'this checkout', dist: ctx.site.dir, server: ctx.server, token: await ctx.server.createLink('Bench') };
  const base = ctx.smoke ? undefined : await startBase(commit, 'firstvisit', ctx.log);
  const sides = base ? [base.side, ours] : [ours];
  let visits: Map<string, LinkVisit[]>;
  let plain: Awaited<ReturnType<typeof plainHttpFigures>> | undefined;
  try {
    visits = await visitsThroughLink(ctx, sides, runs);
    if (!ctx.smoke) plain = await plainHttpFigures(ctx, sides, runs);
  } finally {
    await base?.stop();
  }

  const rows: Row[] = [];
  const figuresOf = (side: Side | undefined, protocol: Protocols) => (side ? figures(visits.get(`${side.label}|${protocol}`)!) : undefined);
  for (const protocol of PROTOCOLS) {
    const mine = figuresOf(ours, protocol.id)!;
    rows.push(...protocolRows(protocol.label, mine, figuresOf(base?.side, protocol.id), commit, protocol.id === 'h2'));
  }
  if (plain) {
    const { devtools, worker } = plain;
    rows.push({
      metric: `/r/ first visit, secondary: Record works, plain HTTP with DevTools throttling (${DEVTOOLS_PROFILE.label}, no handshakes)`,
      ours: median(devtools.get(ours.label)!),
      baseline: base ? median(devtools.get(commit)!) : null,
      unit: 'ms',
      digits: 0,
    });
    rows.push({
      metric: `/r/ first visit: service worker's network bytes, apart from the timing (${worker[commit]?.requests ?? '—'} -> ${worker[ours.label]!.requests} requests)`,
      ours: worker[ours.label]!.kb,
      baseline: worker[commit]?.kb ?? null,
      unit: 'KB',
    });
  }
  const perSide = sides
    .flatMap((s) =>
      PROTOCOLS.map((p) => {
        const f = figuresOf(s, p.id)!;
        return `${s.label} on ${p.label} ${f.downKb.toFixed(1)} KB down, ${f.connections} connection(s)`;
      }),
    )
    .join('; ');
  return {
    id: 'firstvisit',
    title: base ? `1c. The first visit over HTTPS on one bar, against ${commit} (same run, same machine)` : '1c. The first visit over HTTPS on one bar',
    baseline: base
      ? `commit ${commit}: a git archive of it built with its own build and served by its own server, visited alternately with this checkout through the same link and TLS front.`
      : 'none in the smoke run (no base checkout is built); the aims are absolute.',
    rows,
    chart: {
      kind: 'bars',
      title: `The HTML and Record works, median of ${runs} first visit(s) on one bar over HTTPS`,
      unit: 'ms',
      series: sides.map((s) => s.label),
      groups: PROTOCOLS.flatMap((p) => [
        { label: `${p.label}: HTML`, values: sides.map((s) => figuresOf(s, p.id)!.htmlMs) },
        { label: `${p.label}: Record`, values: sides.map((s) => figuresOf(s, p.id)!.recordMs) },
      ]),
      line: { value: AIM.recordMs, label: `aim: Record under ${AIM.recordMs / 1000} s` },
    },
    notes: [
      `Median of ${runs} first visit(s) per side and protocol, sides alternated within each round. Each visit: a new Chromium (fresh profile, service workers blocked, CPU slowed ${CPU_SLOWDOWN}x with CDP Emulation.setCPUThrottlingRate) and a new link model: ${ONE_BAR.roundTripMs} ms round trip (a new connection waits one before its first byte, each direction adds half), one ${ONE_BAR.bitsPerSecond / 1000} kbit/s pipe each way shared by all connections, taken in turns; no TCP slow start, no loss.`,
      "The link sits between Chromium and Caddy (Debian's, `tls internal`: a leaf and an intermediate, as a public CA's chain), so TCP and TLS handshakes cross it; Caddy proxies to the side's server on loopback. Chromium trusts the intermediate's key with --ignore-certificate-errors-spki-list.",
      `"The HTML has arrived": the navigation's responseEnd. "Record works": the first moment a button whose text is exactly "Record" is on the page and not disabled, seen by a MutationObserver the bench adds before the page's scripts. Bytes: what the link delivered both ways until then, TLS and HTTP framing included, TCP/IP headers not. Of them down, and the connections opened until then: ${perSide}.`,
      `Aims, held on HTTP/2: Record works within ${AIM.ratio}x the HTML's own time, at most ${AIM.kb} KB on the wire before it does, and under ${AIM.recordMs / 1000} s; each side's verdict is in the aim's text, this checkout's in the result column.`,
      "The secondary row is the pages section's measurement (plain HTTP, DevTools' per-request latency and throughput, no connection or TLS round trips): it understates what a friend waits for. The worker's bytes are measured apart, in a visit with service workers allowed.",
    ],
  };
}
