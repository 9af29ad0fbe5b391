'use strict';
const $ = id => document.getElementById(id);
const token = new URLSearchParams(location.search).get('token') || '';
const cg = window.cinegraphEdit = { ready: false, index: 0, loads: 0, seeks: [], errors: [], messages: [], playFps: 0 };
let take = null, script = null, lease = '', playing = false, dragging = null;
let inflight = false, wanted = null, frameURL = null;

function headers(json) {
  const h = {};
  if (token) h['Authorization'] = 'Bearer ' + token;
  if (lease) h['X-Cinegraph-Lease'] = lease;
  if (json) h['Content-Type'] = 'application/json';
  return h;
}
function toast(text, error) {
  const t = $('toast'); t.textContent = text; t.className = 'on' + (error ? ' error' : '');
  (error ? cg.errors : cg.messages).push(text);
  clearTimeout(toast.timer); toast.timer = setTimeout(() => t.className = '', error ? 5000 : 2200);
}
async function api(method, path, body) {
  const r = await fetch(path, { method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (r.status === 409 && /another tab/.test(data.error || '')) showBanner(data.error);
  if (!r.ok) { toast(data.error || ('error ' + r.status), true); throw new Error(data.error || r.status); }
  return data;
}
function showBanner(text) { $('bannertext').textContent = text; $('banner').className = 'on'; }
async function claim(force) {
  try {
    lease = '';
    lease = (await api('POST', '/api/claim', { force })).lease;
    $('banner').className = ''; $('toast').className = ''; cg.lease = lease;
  } catch (e) { lease = ''; }
}

// ---- frames: the newest request wins; a seek's latency is request → painted
function show(i, why) {
  i = Math.max(0, Math.min(take.frames - 1, i));
  cg.index = i;
  updateTime(); drawOverlay(); drawTimeline();
  wanted = { i, t0: performance.now(), why: why || 'seek' };
  if (!inflight) fetchFrame();
}
async function fetchFrame() {
  if (!wanted) return;
  const w = wanted; wanted = null; inflight = true;
  const width = playing ? Math.min(640, take.previewWidth) : take.previewWidth;
  try {
    const r = await fetch('/api/frame?index=' + w.i + '&width=' + width, { headers: headers(false) });
    if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error || r.status);
    const blob = await r.blob();
    const url = URL.createObjectURL(blob);
    await new Promise((ok, bad) => { $('frame').onload = ok; $('frame').onerror = bad; $('frame').src = url; });
    if (frameURL) URL.revokeObjectURL(frameURL);
    frameURL = url; cg.loads++; cg.shown = w.i;
    if (w.why === 'seek') cg.seeks.push(performance.now() - w.t0);
    sizeOverlay(); drawOverlay();
  } catch (e) { toast('frame ' + w.i + ': ' + e.message, true); }
  inflight = false;
  if (wanted) fetchFrame();
}
function refreshFrame() { show(cg.index, 'edit'); }

// ---- playback: real time, frames skipped when the server is slower
let playStart = 0, playFrom = 0, playCount = 0;
function togglePlay() {
  playing = !playing; $('play').textContent = playing ? 'Pause' : 'Play';
  if (playing) {
    if (cg.index >= take.frames - 1) cg.index = 0;
    playStart = performance.now(); playFrom = cg.index; playCount = cg.loads; requestAnimationFrame(tick);
  }
}
function tick(now) {
  if (!playing) return;
  const elapsed = (now - playStart) / 1000;
  const i = playFrom + Math.floor(elapsed * take.fps);
  if (i >= take.frames) { togglePlay(); return; }
  if (!inflight && i !== cg.index) show(i, 'play');
  if (elapsed > 0.5) cg.playFps = (cg.loads - playCount) / elapsed;
  requestAnimationFrame(tick);
}

// ---- the overlay: rectangles by focus mode
function sizeOverlay() {
  const c = $('overlay'), img = $('frame'), r = devicePixelRatio || 1;
  c.width = Math.round(img.clientWidth * r); c.height = Math.round(img.clientHeight * r);
}
function drawOverlay() {
  const c = $('overlay'), g = c.getContext('2d');
  g.clearRect(0, 0, c.width, c.height);
  if (!take || !script) return;
  const f = script.focus[cg.index], r = devicePixelRatio || 1;
  // The recorded detections, and the objects followed after a tap (added tracks).
  const rects = take.detections[cg.index].slice();
  for (const t of script.tracks || []) {
    const b = t.boxes[cg.index - t.first];
    if (b) rects.push([t.id, t.id, 'object', b[0], b[1], b[2], b[3]]);
  }
  for (const [id, , type, x, y, w, h] of rects) {
    const focused = id === f[1];
    g.setLineDash(focused && f[2] === 2 ? [8 * r, 6 * r] : []);
    g.lineWidth = (focused ? (f[2] === 3 ? 3.5 : 2.5) : 1.2) * r;
    g.strokeStyle = focused ? '#ffd60a' : 'rgba(255,255,255,.65)';
    g.strokeRect(x * c.width, y * c.height, w * c.width, h * c.height);
    g.setLineDash([]);
    g.font = (12 * r) + 'px system-ui'; g.fillStyle = g.strokeStyle;
    const label = '#' + id + ' ' + type.replace('human', '') + (focused ? [' ', ' auto', ' weak', ' strong'][f[2]] : '');
    g.fillText(label, x * c.width + 3 * r, y * c.height - 4 * r);
  }
}
$('overlay').addEventListener('click', async ev => {
  const c = $('overlay'), b = c.getBoundingClientRect();
  const x = (ev.clientX - b.left) / b.width, y = (ev.clientY - b.top) / b.height;
  await edit('POST', '/api/tap', { time: take.times[cg.index], x, y });
});

// ---- the timeline: focus plot, lanes, markers, playhead
const PLOT = 54, LANE = 14;
function geometry() {
  const c = $('timeline'), r = devicePixelRatio || 1;
  return { c, r, w: c.width, h: c.height, x: i => (i + 0.5) / take.frames * c.width };
}
function sizeTimeline() {
  const c = $('timeline'), r = devicePixelRatio || 1;
  c.width = Math.round(c.clientWidth * r); c.height = Math.round(c.clientHeight * r);
}
function drawTimeline() {
  if (!take || !script) return;
  const { c, r, w, h, x } = geometry(), g = c.getContext('2d');
  g.clearRect(0, 0, w, h);
  // focus plot: disparity of the focus over time (near at the top)
  const ds = script.focus.map(f => f[0]);
  const lo = Math.min(...ds), hi = Math.max(...ds, lo + 1);
  const py = d => (6 + (1 - (d - lo) / (hi - lo)) * (PLOT - 12)) * r;
  g.strokeStyle = '#ffd60a'; g.lineWidth = 1.5 * r; g.beginPath();
  ds.forEach((d, i) => i ? g.lineTo(x(i), py(d)) : g.moveTo(x(i), py(d))); g.stroke();
  g.fillStyle = '#777'; g.font = (10 * r) + 'px system-ui';
  g.fillText('focus ' + hi.toFixed(0) + ' px', 4 * r, 11 * r); g.fillText(lo.toFixed(0) + ' px', 4 * r, (PLOT - 3) * r);
  // lanes: one per subject, drawn where it is in the frame
  const lanes = take.subjects.slice(0, Math.floor((h / r - PLOT - 18) / LANE));
  lanes.forEach((s, k) => {
    const y0 = (PLOT + 4 + k * LANE) * r;
    g.fillStyle = 'rgba(120,170,255,.55)';
    for (const [a, b] of s.spans) g.fillRect(x(a) - 0.5 * w / take.frames, y0, Math.max(1, x(b) - x(a) + w / take.frames), (LANE - 4) * r);
    g.fillStyle = '#ddd'; g.fillText('#' + s.id, 4 * r, y0 + 9 * r);
  });
  // decision markers: grey automatic, yellow outline weak, yellow filled strong
  for (const d of script.decisions) {
    if (d.index === undefined) continue;
    const mx = x(d.index), my = (PLOT - 2) * r, s = 6 * r;
    g.beginPath(); g.moveTo(mx, my); g.lineTo(mx - s, my - 1.6 * s); g.lineTo(mx + s, my - 1.6 * s); g.closePath();
    g.lineWidth = 1.5 * r;
    if (d.kind === 'base') { g.fillStyle = '#888'; g.fill(); }
    else if (d.kind === 'weakUser') { g.strokeStyle = '#ffd60a'; g.stroke(); }
    else { g.fillStyle = '#ffd60a'; g.fill(); }
  }
  // playhead
  g.fillStyle = '#fff'; g.fillRect(x(cg.index) - r, 0, 2 * r, h);
}
function indexAt(ev) {
  const b = $('timeline').getBoundingClientRect();
  return Math.max(0, Math.min(take.frames - 1, Math.floor((ev.clientX - b.left) / b.width * take.frames)));
}
function markerAt(ev) {
  const b = $('timeline').getBoundingClientRect();
  const px = ev.clientX - b.left, py = ev.clientY - b.top;
  if (py > PLOT + 2) return null;
  return script.decisions.find(d => d.kind !== 'base' && d.index !== undefined &&
                               Math.abs((d.index + 0.5) / take.frames * b.width - px) < 9) || null;
}
$('timeline').addEventListener('pointerdown', ev => {
  $('timeline').setPointerCapture(ev.pointerId);
  const m = markerAt(ev);
  dragging = m ? { from: m.index, to: m.index } : { scrub: true };
  show(m ? m.index : indexAt(ev));
});
$('timeline').addEventListener('pointermove', ev => {
  if (!dragging) return;
  const i = indexAt(ev);
  if (dragging.scrub) { if (i !== cg.index) show(i); return; }
  dragging.to = i; show(i);
});
$('timeline').addEventListener('pointerup', async () => {
  const d = dragging; dragging = null;
  if (d && !d.scrub && d.to !== d.from) {
    await edit('POST', '/api/decisions/move', { from: take.times[d.from], to: take.times[d.to] });
  }
});

// ---- edits
async function edit(method, path, body) {
  try { const s = await api(method, path, body); adopt(s); if (s.message) toast(s.message); refreshFrame(); return s; }
  catch (e) { return null; }
}
function adopt(s) {
  script = s; cg.script = s;
  $('undo').disabled = !s.canUndo; $('redo').disabled = !s.canRedo;
  $('saved').textContent = s.dirty ? 'unsaved changes' : 'saved'; $('saved').className = s.dirty ? 'dirty' : '';
  $('fnumber').textContent = s.fNumber.toFixed(1);
  $('aperture').value = sliderOf(s.fNumber);
  const list = $('list'); list.textContent = '';
  const mine = s.decisions.filter(d => d.kind !== 'base');
  if (!mine.length) { const li = document.createElement('li'); li.textContent = 'none yet: tap a subject'; list.append(li); }
  for (const d of mine) {
    const li = document.createElement('li');
    const go = document.createElement('button'); go.className = 'seek'; go.textContent = d.time.toFixed(2) + ' s';
    go.onclick = () => show(d.index);
    const what = document.createElement('span');
    what.textContent = (d.kind === 'strongUser' ? 'strong' : 'weak') + ' · ' +
      (d.detectionID !== undefined ? 'subject #' + d.detectionID : d.groupID !== undefined ? 'group ' + d.groupID
       : 'plane at ' + d.disparity.toFixed(1) + ' px');
    const del = document.createElement('button'); del.textContent = '×'; del.title = 'Remove';
    del.onclick = () => edit('POST', '/api/decisions/remove', { time: d.time });
    li.append(go, what, del); list.append(li);
  }
  drawTimeline(); drawOverlay();
}
// aperture slider: logarithmic over the allowed f-numbers
const sliderOf = f => Math.round(Math.log(f / take.fNumberRange[0]) / Math.log(take.fNumberRange[1] / take.fNumberRange[0]) * 1000);
const fOf = v => take.fNumberRange[0] * Math.pow(take.fNumberRange[1] / take.fNumberRange[0], v / 1000);
$('aperture').addEventListener('input', () => { $('fnumber').textContent = fOf(+$('aperture').value).toFixed(1); });
$('aperture').addEventListener('change', () => edit('POST', '/api/aperture', { fNumber: Math.round(fOf(+$('aperture').value) * 10) / 10 }));
$('undo').onclick = () => edit('POST', '/api/undo', {});
$('redo').onclick = () => edit('POST', '/api/redo', {});
$('save').onclick = () => edit('POST', '/api/save', {});
$('speakers').onclick = () => edit('POST', '/api/speakers', {});
$('export').onclick = async () => {
  $('export').disabled = true; toast('exporting depth…');
  try { const r = await api('POST', '/api/export', {}); cg.exported = r; toast(r.message); } catch (e) { /* api() has shown the error */ }
  $('export').disabled = false;
};
$('takeover').onclick = async () => { await claim(true); await reload(); };
$('open').addEventListener('change', async () => {
  const file = $('open').files[0]; $('open').value = '';
  if (!file) return;
  let changes;
  try { changes = JSON.parse(await file.text()); } catch (e) { toast(file.name + ' is not JSON (a changes file is written by cinegraph script or Save)', true); return; }
  await edit('POST', '/api/changes', { changes });
});
$('play').onclick = togglePlay;
document.addEventListener('keydown', ev => {
  if (ev.target.tagName === 'INPUT') return;
  if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
    ev.preventDefault(); if (playing) togglePlay();
    show(cg.index + (ev.key === 'ArrowLeft' ? -1 : 1) * (ev.shiftKey ? Math.round(take.fps) : 1));
  } else if (ev.key === ' ') { ev.preventDefault(); togglePlay(); }
  else if ((ev.key === 'z' || ev.key === 'Z') && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); edit('POST', ev.shiftKey ? '/api/redo' : '/api/undo', {}); }
  else if (ev.key === 's' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); edit('POST', '/api/save', {}); }
  else if (ev.key === 'Delete' || ev.key === 'Backspace') {
    const mine = script.decisions.find(d => d.kind !== 'base' && d.index === cg.index);
    if (mine) edit('POST', '/api/decisions/remove', { time: mine.time });
  }
});

// ---- render
$('render').onclick = async () => {
  try { await api('POST', '/api/render', {}); pollRender(); } catch (e) { /* api() has shown the error */ }
};
async function pollRender() {
  let s;
  try { s = await api('GET', '/api/render'); } catch (e) { return; }
  cg.render = s;
  $('progress').value = s.total ? s.done / s.total : 0;
  $('rstatus').textContent = s.state === 'running' ? s.done + ' / ' + s.total + ' frames'
    : s.state === 'done' ? 'done in ' + s.seconds.toFixed(1) + ' s' : s.state === 'failed' ? 'failed: ' + s.error : 'not rendered';
  $('render').disabled = s.state === 'running';
  const a = $('download');
  a.hidden = s.state !== 'done';
  if (s.state === 'done') { a.href = '/api/render/movie' + (token ? '?token=' + encodeURIComponent(token) : ''); a.download = s.output.split('/').pop(); }
  if (s.state === 'running') setTimeout(pollRender, 300);
}

function updateTime() {
  $('time').textContent = take.times[cg.index].toFixed(2) + ' s / ' + take.duration.toFixed(2) + ' s · frame ' + cg.index;
}
async function reload() { adopt(await api('GET', '/api/script')); refreshFrame(); }
window.addEventListener('resize', () => { sizeOverlay(); sizeTimeline(); drawOverlay(); drawTimeline(); });
(async () => {
  take = await api('GET', '/api/take'); cg.take = take;
  $('title').textContent = take.asset.split('/').pop(); document.title = 'cinegraph edit · ' + $('title').textContent;
  await claim(false);
  sizeTimeline();
  adopt(await api('GET', '/api/script'));
  show(0);
  pollRender();
  setInterval(() => api('GET', '/api/render').then(s => { cg.render = s; }).catch(() => {}), 5000);
  cg.ready = true;
})().catch(e => toast(e.message, true));
