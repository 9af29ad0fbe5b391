"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const query = token ? "?token=" + encodeURIComponent(token) : "";
const wsBase = (location.protocol === "https:" ? "wss://" : "ws://") + location.host;
const $ = (id) => document.getElementById(id);
const img = $("frame"), canvas = $("overlay"), ctx2d = canvas.getContext("2d");
// State the tests (and the curious) can read: window.cinegraph.
const cg = window.cinegraph = { frames: 0, header: null, metadata: null, metadataCount: 0, scene: [], stats: null,
                                events: [], replies: [], errors: [], gestures: [], state: null };
let recording = false, dragging = false, toastTimer = 0;

function toast(text, error) {
  const t = $("toast");
  t.textContent = text;
  t.className = "on" + (error ? " error" : "");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = ""; }, 2500);
}

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["Authorization"] = "Bearer " + token;
  const init = body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const json = await response.json().catch(() => ({}));
  if (!response.ok) {
    cg.errors.push({ path, status: response.status, error: json.error });
    toast(json.error || ("error " + response.status), true);
    throw new Error(json.error || response.status);
  }
  if (json.reply !== undefined) { cg.replies.push({ path, reply: json.reply }); toast(json.reply); }
  return json;
}

// ---- preview: one frame per "next", so frames come at the display's pace ----
function connectVideo() {
  const ws = new WebSocket(wsBase + "/ws/video" + query);
  ws.binaryType = "blob";
  let header = null, shown = null, arrived = 0;
  ws.onopen = () => ws.send("next");
  ws.onmessage = (m) => {
    // "next MS": ready for a frame, the last one painted MS after its header arrived
    // (the server adds how old the frame was when sent: camera-to-screen latency).
    if (typeof m.data === "string") { header = JSON.parse(m.data); arrived = performance.now(); return; }
    const url = URL.createObjectURL(m.data), h = header;
    img.onload = () => {
      if (shown) URL.revokeObjectURL(shown);
      shown = url;
      cg.frames += 1;
      cg.header = h;
      $("waiting").style.display = "none";
      draw(h);
      if (h && h.scene) { frameScene = h.scene; showScene(); }
      if (h && h.focus && h.focus.fNumber && !dragging) showFNumber(h.focus.fNumber);
      const t = arrived;
      requestAnimationFrame(() => { if (ws.readyState === 1) ws.send("next " + (performance.now() - t).toFixed(1)); });
    };
    img.onerror = () => { if (ws.readyState === 1) ws.send("next"); };
    img.src = url;
  };
  ws.onclose = () => setTimeout(connectVideo, 1000);
}

// ---- rectangles: solid yellow = strong, dashed yellow = weak, white = none; green bar = speaking ----
function draw(h) {
  const w = canvas.clientWidth, hh = canvas.clientHeight, dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(hh * dpr)) {
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(hh * dpr);
  }
  ctx2d.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx2d.clearRect(0, 0, w, hh);
  if (drag && drag.to) {
    const [a, b] = [drag.from, drag.to];
    ctx2d.lineWidth = 2; ctx2d.strokeStyle = "#ffd60a"; ctx2d.setLineDash([6, 4]);
    ctx2d.strokeRect(Math.min(a[0], b[0]) * w, Math.min(a[1], b[1]) * hh, Math.abs(a[0] - b[0]) * w, Math.abs(a[1] - b[1]) * hh);
  }
  if (!h || !h.detections) return;
  for (const d of h.detections) {
    const b = d.bounds, x = b.x * w, y = b.y * hh, bw = b.width * w, bh = b.height * hh;
    ctx2d.lineWidth = d.focusMode === "none" ? 2 : 3;
    ctx2d.strokeStyle = d.focusMode === "none" ? "#ffffff" : "#ffd60a";
    ctx2d.setLineDash(d.focusMode === "weak" ? [8, 6] : []);
    ctx2d.strokeRect(x, y, bw, bh);
    // A face the detector sees speaking (its lips moving): a green bar under its box.
    if (d.speaking) {
      ctx2d.fillStyle = "#34c759";
      ctx2d.fillRect(x + bw * 0.25, y + bh + 4, bw * 0.5, 5);
    }
  }
}

// ---- gestures: tap, and long press (0.3 s) ----
let press = null;
function point(e) {
  const r = canvas.getBoundingClientRect();
  const x = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
  const y = Math.min(1, Math.max(0, (e.clientY - r.top) / r.height));
  return [Math.round(x * 10000) / 10000, Math.round(y * 10000) / 10000];
}
canvas.addEventListener("pointerdown", (e) => {
  e.preventDefault();
  const p = point(e), start = { x: e.clientX, y: e.clientY };
  press = { p, start, fired: false, timer: setTimeout(() => {
    if (!press) return;
    press.fired = true;
    gesture("press", press.p);
  }, 300) };
});
// A drag (more than 12 px) draws a box: the object in it is tracked (the focus node's track-box).
let drag = null;
canvas.addEventListener("pointermove", (e) => {
  if (press && !press.fired && Math.hypot(e.clientX - press.start.x, e.clientY - press.start.y) > 12) {
    clearTimeout(press.timer); drag = { from: press.p }; press = null;
  }
  if (drag) { drag.to = point(e); draw(cg.header); }
});
canvas.addEventListener("pointerup", (e) => {
  if (drag) {
    const [a, b] = [drag.from, point(e)];
    drag = null;
    draw(cg.header);
    const x = Math.min(a[0], b[0]), y = Math.min(a[1], b[1]);
    const w = Math.abs(a[0] - b[0]), h = Math.abs(a[1] - b[1]);
    if (w > 0 && h > 0) trackBox([x, y, w, h].map((v) => Math.round(v * 10000) / 10000));
    return;
  }
  if (!press) return;
  clearTimeout(press.timer);
  if (!press.fired) gesture("tap", press.p);
  press = null;
});
function trackBox(box) {
  const node = cg.state && cg.state.capabilities.focus;
  cg.gestures.push({ kind: "box", box });
  if (!node) { toast("this graph has no focus node", true); return; }
  api("/api/nodes/" + encodeURIComponent(node) + "/command",
      { name: "track-box", arguments: { box: box.join(",") } }).catch(() => {});
}
canvas.addEventListener("pointercancel", () => { if (press) clearTimeout(press.timer); press = null; drag = null; });
canvas.addEventListener("contextmenu", (e) => e.preventDefault());
function gesture(kind, p) {
  cg.gestures.push({ kind, point: p });
  api("/api/" + kind, { point: p }).catch(() => {});
}

// ---- aperture, buttons, banner, statistics ----
const slider = $("aperture");
function showFNumber(f) { $("fnumber").textContent = "f/" + Number(f).toFixed(1); slider.value = f; }
slider.addEventListener("input", () => { dragging = true; $("fnumber").textContent = "f/" + Number(slider.value).toFixed(1); });
slider.addEventListener("change", () => {
  dragging = false;
  api("/api/aperture", { value: Number(slider.value) }).catch(() => {});
});
$("auto").onclick = () => api("/api/auto", {}).catch(() => {});
$("still").onclick = () => api("/api/still", {}).catch(() => {});
function showRecording(on) {
  recording = on;
  $("record").classList.toggle("on", on);
  $("record").textContent = on ? "Stop" : "Record";
}
$("record").onclick = () => {
  api("/api/record", { action: recording ? "stop" : "start" }).then(() => showRecording(!recording)).catch(() => {});
};
// Scene statuses come with the frames (the focus state) and as events; either may warn.
let frameScene = [], eventScene = [];
function showScene() {
  cg.scene = frameScene.concat(eventScene.filter((s) => !frameScene.includes(s)));
  $("banner").classList.toggle("on", cg.scene.includes("notEnoughLight"));
}
function showStats(s) {
  cg.stats = s;
  const parts = [];
  if (s.fps !== undefined) parts.push(s.fps.toFixed(1) + " fps");
  if (s.takeDrops !== undefined) {
    if (s.takeDrops > 0) parts.push(s.takeDrops + " lost from the take");
    if (s.previewDrops > 0) parts.push(s.previewDrops + " shed by the preview");
    if (s.loadLevel > 0) parts.push("preview lightened (load " + s.loadLevel + ")");
  } else if (s.drops !== undefined) parts.push(s.drops + " dropped");
  if (s.screenLatencyP50Ms !== undefined) parts.push("latency " + Math.round(s.screenLatencyP50Ms) + " ms");
  else if (s.latencyMs !== undefined) parts.push("latency " + Math.round(s.latencyMs) + " ms");
  if (s.viewerFpsCap !== undefined && s.loadLevel > 0) parts.push("viewer ≤ " + s.viewerFpsCap + " fps (machine busy)");
  parts.push(s.viewers + (s.viewers === 1 ? " viewer" : " viewers"));
  $("stats").textContent = parts.join(" · ");
}

function connectEvents() {
  const ws = new WebSocket(wsBase + "/ws/events" + query);
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "metadata") { cg.metadata = msg; cg.metadataCount += 1; }
    else if (msg.type === "scene") { eventScene = msg.statuses; showScene(); }
    else if (msg.type === "stats") showStats(msg);
    else if (msg.type === "event") {
      cg.events.push(msg);
      if (cg.events.length > 100) cg.events.shift();
      if (msg.name === "still-saved") toast("still saved: " + msg.fields.path);
      if (msg.name === "recording-started") showRecording(true);
      if (msg.name === "movie-saved") showRecording(false);
      // Live calibration (cinegraph calibrate --device): each kept pair, and when there are enough.
      if (msg.name === "calibration-pair" || msg.name === "calibration-enough") toast(msg.fields.message);
    }
  };
  ws.onclose = () => setTimeout(connectEvents, 1000);
}

async function loadState() {
  try {
    const s = await api("/api/state");
    cg.state = s;
    const a = s.aperture;
    slider.min = a.min; slider.max = a.max;
    if (a.value !== undefined) showFNumber(a.value);
    slider.disabled = !a.node;
    $("auto").disabled = !s.capabilities.focus;
    $("still").disabled = !s.capabilities.still;
    $("record").disabled = s.capabilities.record.length === 0;
    if ($("record").disabled) $("record").title = "this graph has no recorder";
    showRecording(!!s.recording);
    if ($("still").disabled) $("still").title = "this graph has no still node";
    eventScene = s.scene || [];
    showScene();
    if (s.stats) showStats(s.stats);
  } catch (e) { setTimeout(loadState, 2000); }
}

window.addEventListener("resize", () => draw(cg.header));
loadState();
connectVideo();
connectEvents();
