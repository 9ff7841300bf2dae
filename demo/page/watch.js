// The watch page: the runner's phone as the app would be, drawn from the demo's state (asked for
// every half second). Plain DOM, no framework; no inline code (the page's CSP allows only its own files).
const SVG = 'http://www.w3.org/2000/svg';
const STEPS = [
  ['sent', 'Sent'],
  ['stored', 'Stored'],
  ['converted', 'Converted'],
  ['onPhone', 'On the phone'],
  ['played', 'Played'],
];
const svg = document.getElementById('course');
const statusLine = document.getElementById('status');
const list = document.getElementById('notes');
const hint = document.getElementById('hint');
const soundButton = document.getElementById('sound');
let soundAllowed = false;
const heard = new Set();
const markerNodes = new Map();
let runnerDot;
let runPath;
let coursePoints = [];
let courseMeters = 1;

function el(name, attrs = {}, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.appendChild(node);
  return node;
}

async function drawCourse() {
  const course = await (await fetch('/course.json')).json();
  coursePoints = course.points;
  courseMeters = course.lengthMeters;
  svg.setAttribute('viewBox', `0 0 ${course.size} ${course.size}`);
  const d = course.points.map(([x, y], i) => `${i ? 'L' : 'M'}${x} ${y}`).join('');
  el('path', { d, class: 'course' }, svg);
  runPath = el('path', { d: '', class: 'run' }, svg);
  for (const m of course.markers) {
    const g = el('g', { class: 'marker', 'data-marker': m.id }, svg);
    el('circle', { cx: m.at[0], cy: m.at[1], r: 9 }, g);
    // Every marker has a dot; labels only on the first mile and every fifth, or every kilometre marker on a course marked in
    // kilometres, and the finish, so they stay readable.
    if (course.unit === 'km' ? /^km-\d+$|^finish$/.test(m.id) : /^mi-(1|5|10|15|20|25)$|^finish$/.test(m.id)) {
      const t = el('text', { x: m.at[0] + 16, y: m.at[1] + 7 }, g);
      t.textContent = m.label;
    }
    const title = el('title', {}, g);
    title.textContent = m.label;
    markerNodes.set(m.id, { g, meters: m.meters });
  }
  runnerDot = el('circle', { r: 18, class: 'runner', cx: course.points[0][0], cy: course.points[0][1] }, svg);
}

// Every time on this page is on the demo's clock (the server's, the phone's and the recorder's), in the race's zone.
const time = (ms, timeZone, seconds) =>
  new Date(ms).toLocaleTimeString('en-US', { timeZone, hour: 'numeric', minute: '2-digit', ...(seconds && { second: '2-digit' }) });

function noteItem(n, state) {
  const li = document.createElement('li');
  li.dataset.noteId = n.id;
  li.dataset.testid = 'watch-note';
  // Playing for its real length: the demo's clock runs `compression` times as fast.
  const sincePlayed = n.played && (Date.parse(state.raceClock) - n.played) / state.compression;
  if (n.played && sincePlayed < (n.durationMs ?? 5000) + 1000) li.className = 'playing';
  const title = document.createElement('p');
  title.className = 'note-title';
  const from = n.from ? `${n.from}` : 'A friend';
  const length = n.durationMs ? ` (${Math.round(n.durationMs / 1000)} s)` : '';
  title.textContent = `${from} → ${n.markerLabel || 'a marker'}${length}`;
  li.appendChild(title);
  const steps = document.createElement('ol');
  steps.className = 'steps';
  for (const [key, label] of STEPS) {
    if (key === 'sent' && !n.sent) continue;
    const s = document.createElement('li');
    const at = n[key];
    s.className = at ? 'done' : '';
    s.textContent = key === 'played' && at ? `Played at ${n.heardAt}${n.atItsMarker ? '' : ' (late)'}` : label;
    if (at) s.title = time(at, state.timeZone, true);
    s.dataset.step = key;
    steps.appendChild(s);
  }
  if (n.failed) {
    const s = document.createElement('li');
    s.textContent = 'Conversion failed';
    steps.appendChild(s);
  }
  li.appendChild(steps);
  if (n.venueTries) {
    const v = document.createElement('p');
    v.className = 'venue';
    v.textContent = `On the venue link: ${n.venueTries}`;
    li.appendChild(v);
  }
  return li;
}

function playSound(n) {
  if (heard.has(n.id)) return;
  heard.add(n.id);
  if (!soundAllowed) return;
  const audio = new Audio(`/audio/${n.id}`);
  void audio.play().catch(() => undefined);
}

function render(state) {
  const r = state.runner;
  const clock = time(Date.parse(state.raceClock), state.timeZone);
  // Distances come in the unit the course is marked in; the finish is said once, in this line, from the moment it happens.
  const finished = r.finished && `Alex finished at ${time(Date.parse(r.finished.at), state.timeZone)}, in ${r.finished.time}`;
  const venue = state.venue ? ` · venue link ${state.venue.online ? 'up' : 'offline'}` : '';
  if (state.done) statusLine.textContent = `The demo is over.${finished ? ` ${finished}.` : ''}`;
  else {
    const where = finished || `Alex: ${r.distance}${r.lastMarker ? `, past ${r.lastMarker}` : ''}`;
    statusLine.textContent = `${where} · race clock ${clock} (${state.compression}x)${venue}`;
  }
  runnerDot.setAttribute('cx', r.at[0]);
  runnerDot.setAttribute('cy', r.at[1]);
  // The stretch run so far: the course up to the course point nearest the runner.
  let nearest = 0;
  let best = Infinity;
  const from = Math.max(0, Math.floor(coursePoints.length * (r.meters / courseMeters)) - 40);
  for (let i = from; i < Math.min(coursePoints.length, from + 80); i++) {
    const d = (coursePoints[i][0] - r.at[0]) ** 2 + (coursePoints[i][1] - r.at[1]) ** 2;
    if (d < best) [best, nearest] = [d, i];
  }
  runPath.setAttribute(
    'd',
    coursePoints
      .slice(0, nearest + 1)
      .map(([x, y], i) => `${i ? 'L' : 'M'}${x} ${y}`)
      .join(''),
  );
  for (const [id, { g, meters }] of markerNodes) {
    g.classList.toggle('passed', meters <= r.meters);
    g.classList.toggle(
      'has-note',
      state.notes.some((n) => n.marker === id),
    );
    g.classList.toggle(
      'played',
      state.notes.some((n) => n.marker === id && n.played),
    );
  }
  hint.hidden = state.notes.length > 0;
  list.replaceChildren(...state.notes.map((n) => noteItem(n, state)));
  for (const n of state.notes) if (n.played) playSound(n);
}

soundButton.addEventListener('click', () => {
  soundAllowed = !soundAllowed;
  soundButton.setAttribute('aria-pressed', String(soundAllowed));
  soundButton.textContent = soundAllowed ? 'Sound on' : 'Allow sound';
});

async function poll() {
  try {
    render(await (await fetch('/state.json')).json());
  } catch {
    statusLine.textContent = 'The demo has stopped.';
    return;
  }
  setTimeout(poll, 500);
}

await drawCourse();
void poll();
