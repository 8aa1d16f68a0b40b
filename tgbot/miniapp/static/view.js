// The board's window: pinch-zoom and pan with fingers (or wheel and drag), taps on cells,
// and coordinates that stay along the top and left edges whatever part is in view.
import { CELL, COLOR } from "./board.js";

const SVG = "http://www.w3.org/2000/svg";
const TAP_SLOP = 10; // px a finger may wander and still tap
const AXIS_PX = 20; // thickness of the coordinate strips on screen
export const TAP_PX = 46; // a cell when a card is picked: at least a finger's tap (44 CSS px)
const CLOSEST_PX = 64; // and no larger, so that some maze around it stays in view
// The arrows at the window's edges that count the lit cells out of view that way.
const CUES = {
  up: "↑", down: "↓", left: "←", right: "→",
  "up-left": "↖", "up-right": "↗", "down-left": "↙", "down-right": "↘",
};

export class BoardView {
  constructor(svg, onTap) {
    this.svg = svg;
    this.onTap = onTap;
    this.grid = this.layer("grid");
    this.tiles = this.layer("tiles");
    this.marks = this.layer("marks");
    this.axes = this.layer("axes");
    this.box = null;
    this.view = null; // {x, y, w, h} in board units
    this.touched = false; // the player moved the view: keep it when the board grows
    this.focus = ""; // the cells the view was zoomed to (a picked card's), as a key
    this.pointers = new Map();
    this.gesture = null;
    this.frame = 0;
    this.cues = {};
    for (const [side, arrow] of Object.entries(CUES)) {
      const cue = document.createElement("div");
      cue.className = `edge-cue ${side}`;
      cue.dataset.arrow = arrow;
      cue.hidden = true;
      svg.parentElement.appendChild(cue);
      this.cues[side] = cue;
    }
    svg.addEventListener("pointerdown", (e) => this.down(e));
    svg.addEventListener("pointermove", (e) => this.move(e));
    svg.addEventListener("pointerup", (e) => this.up(e));
    svg.addEventListener("pointercancel", (e) => this.cancel(e));
    svg.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    new ResizeObserver(() => this.resized()).observe(svg);
  }

  layer(name) {
    const g = document.createElementNS(SVG, "g");
    g.setAttribute("id", name);
    this.svg.appendChild(g);
    return g;
  }

  // New content. ``box``: the cells drawn (bounds()); the view follows the board when it
  // grows unless the player has moved it. ``focus``: the cells a picked card may go to
  // (or act on): the view zooms to them, cells a finger's size; when the card is put
  // down, back to the whole board.
  draw(box, tilesMarkup, marksMarkup, focus = null) {
    const grew = !this.box || ["minX", "maxX", "minY", "maxY"].some((k) => this.box[k] !== box[k]);
    this.box = box;
    this.tiles.innerHTML = tilesMarkup;
    this.marks.innerHTML = marksMarkup;
    const key = focus && focus.length ? JSON.stringify(focus) : "";
    if (key !== this.focus) {
      const zoomed = this.focus;
      this.focus = key;
      if (key) return this.zoomTo(focus);
      if (zoomed && !this.touched) return this.fit();
    }
    if (!this.view || (grew && !this.touched && !this.focus)) this.fit();
    else this.apply();
  }

  setMarks(marksMarkup) {
    this.marks.innerHTML = marksMarkup;
  }

  size() {
    const r = this.svg.getBoundingClientRect();
    return [Math.max(1, r.width), Math.max(1, r.height)];
  }

  // The whole board in view, with room for the coordinate strips, centred both ways
  // (the grid goes on around it: the board fills its space).
  fit() {
    if (!this.box) return;
    this.show(this.box, Infinity, 0);
  }

  // The cells ``cells`` in view, each at least a finger's tap wide; when they cannot all
  // be at that size, their middle is.
  zoomTo(cells) {
    const xs = cells.map((c) => c[0]), ys = cells.map((c) => c[1]);
    const box = { minX: Math.min(...xs) - 1, maxX: Math.max(...xs) + 1, minY: Math.min(...ys) - 1, maxY: Math.max(...ys) + 1 };
    this.show(box, CLOSEST_PX, TAP_PX);
  }

  // ``box`` centred in the view, its cells as large as fit but within [smallest, largest]
  // CSS px.
  show(box, largest, smallest) {
    const [pw, ph] = this.size();
    const { minX, maxX, minY, maxY } = box;
    const bw = (maxX - minX + 1) * CELL, bh = (maxY - minY + 1) * CELL;
    const fits = Math.min((pw - AXIS_PX) / bw, (ph - AXIS_PX) / bh) * CELL; // px per cell
    const cell = Math.max(smallest, Math.min(largest, fits));
    const scale = CELL / cell; // units per px
    const w = pw * scale, h = ph * scale;
    const axis = AXIS_PX * scale;
    const x = minX * CELL - axis - (w - axis - bw) / 2;
    const y = -maxY * CELL - axis - (h - axis - bh) / 2;
    this.view = { x, y, w, h };
    this.touched = false;
    this.apply();
  }

  // CSS px per cell as the board is shown now.
  cellPx() {
    return this.view ? (CELL * this.size()[0]) / this.view.w : 0;
  }

  // A new size (the panel below grew, the hand came): the view as it was chosen again,
  // unless the player moved it.
  resized() {
    if (!this.view) return this.fit();
    if (!this.touched) return this.focus ? this.zoomTo(JSON.parse(this.focus)) : this.fit();
    const [pw, ph] = this.size();
    this.view.h = this.view.w * (ph / pw);
    this.apply();
  }

  apply() {
    if (!this.view) return;
    const { x, y, w, h } = this.view;
    this.svg.setAttribute("viewBox", `${x} ${y} ${w} ${h}`);
    this.drawGrid();
    this.drawAxes();
    this.drawCues();
  }

  // How many of the cells zoomed to (a picked card's lit cells) are out of view, by the
  // way they lie ("up", "down-left" ...). The coordinate strips hide what is under them.
  outOfView() {
    const counts = Object.fromEntries(Object.keys(CUES).map((side) => [side, 0]));
    if (!this.focus || !this.view) return counts;
    const { x, y, w, h } = this.view;
    const t = (AXIS_PX * w) / this.size()[0];
    for (const cell of JSON.parse(this.focus)) {
      const cx = cell[0] * CELL + CELL / 2, cy = -cell[1] * CELL + CELL / 2;
      const across = cx < x + t ? "left" : cx > x + w ? "right" : "";
      const along = cy < y + t ? "up" : cy > y + h ? "down" : "";
      const side = [along, across].filter(Boolean).join("-");
      if (side) counts[side] += 1;
    }
    return counts;
  }

  // An arrow with a count at each edge or corner beyond which lit cells lie ("↓ 2"). It
  // only tells: taps and drags go through it to the board.
  drawCues() {
    const counts = this.outOfView();
    for (const [side, cue] of Object.entries(this.cues)) {
      const count = counts[side];
      cue.hidden = count === 0;
      cue.dataset.count = String(count);
      cue.textContent = count ? `${cue.dataset.arrow} ${count}` : "";
    }
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.apply();
    });
  }

  // The grid on past the board's edges, so that the whole window is the mine.
  drawGrid() {
    const { x, y, w, h } = this.view;
    let out = "";
    for (let gx = Math.floor(x / CELL) * CELL; gx <= x + w; gx += CELL) {
      out += `<line x1="${gx}" y1="${y}" x2="${gx}" y2="${y + h}" stroke="${COLOR.grid}" stroke-width="1"/>`;
    }
    for (let gy = Math.floor(y / CELL) * CELL; gy <= y + h; gy += CELL) {
      out += `<line x1="${x}" y1="${gy}" x2="${x + w}" y2="${gy}" stroke="${COLOR.grid}" stroke-width="1"/>`;
    }
    this.grid.innerHTML = out;
  }

  // Column numbers along the top edge of the view, row numbers along its left edge.
  drawAxes() {
    if (!this.box) return;
    const { x, y, w, h } = this.view;
    const [pw] = this.size();
    const t = (AXIS_PX * w) / pw;
    const font = t * 0.62;
    const { minX, maxX, minY, maxY } = this.box;
    let out = `<rect x="${x}" y="${y}" width="${w}" height="${t}" fill="${COLOR.background}" opacity="0.92"/>`;
    out += `<rect x="${x}" y="${y}" width="${t}" height="${h}" fill="${COLOR.background}" opacity="0.92"/>`;
    // A negative coordinate with a true minus sign, as the bot's pictures and messages
    // write it: a hyphen shrinks to a dot at a phone's size.
    const text = (cx, cy, n) =>
      `<text x="${cx}" y="${cy}" font-size="${font}" fill="${COLOR.axis}" text-anchor="middle" dominant-baseline="central" font-family="sans-serif">${String(n).replace("-", "\u2212")}</text>`;
    for (let col = Math.max(minX, Math.floor(x / CELL)); col <= Math.min(maxX, Math.ceil((x + w) / CELL)); col++) {
      const cx = col * CELL + CELL / 2;
      if (cx > x + t) out += text(cx, y + t / 2, col);
    }
    for (let row = Math.min(maxY, Math.ceil(-y / CELL)); row >= Math.max(minY, Math.floor(-(y + h) / CELL)); row--) {
      const cy = -row * CELL + CELL / 2;
      if (cy > y + t) out += text(x + t / 2, cy, row);
    }
    this.axes.innerHTML = out;
  }

  // Screen point → board units.
  point(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    return [this.view.x + ((clientX - r.left) * this.view.w) / r.width, this.view.y + ((clientY - r.top) * this.view.h) / r.height];
  }

  zoom(factor, clientX, clientY) {
    const box = this.box;
    const widest = (box.maxX - box.minX + 3) * CELL * 1.5;
    const w = Math.min(widest, Math.max(CELL * 2.5, this.view.w * factor));
    const real = w / this.view.w;
    const [px, py] = this.point(clientX, clientY);
    this.view = {
      x: px - (px - this.view.x) * real,
      y: py - (py - this.view.y) * real,
      w,
      h: this.view.h * real,
    };
    this.touched = true;
    this.schedule();
  }

  down(e) {
    this.svg.setPointerCapture(e.pointerId);
    this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
    const points = [...this.pointers.values()];
    if (points.length === 1) {
      this.gesture = { kind: "pan", start: points[0], view: { ...this.view }, tap: true };
    } else if (points.length === 2) {
      const [a, b] = points;
      this.gesture = { kind: "pinch", distance: Math.hypot(a[0] - b[0], a[1] - b[1]), tap: false };
    }
  }

  move(e) {
    if (!this.pointers.has(e.pointerId) || !this.gesture) return;
    const before = [...this.pointers.values()];
    this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
    const points = [...this.pointers.values()];
    const g = this.gesture;
    if (g.kind === "pan" && points.length === 1) {
      const [sx, sy] = g.start;
      if (Math.hypot(e.clientX - sx, e.clientY - sy) > TAP_SLOP) g.tap = false;
      if (g.tap) return;
      const [pw] = this.size();
      const k = this.view.w / pw;
      this.view = { ...this.view, x: g.view.x - (e.clientX - sx) * k, y: g.view.y - (e.clientY - sy) * k };
      this.touched = true;
      this.schedule();
    } else if (g.kind === "pinch" && points.length === 2) {
      const [a, b] = points;
      const distance = Math.hypot(a[0] - b[0], a[1] - b[1]);
      const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      const [oa, ob] = before;
      const oldMid = [(oa[0] + ob[0]) / 2, (oa[1] + ob[1]) / 2];
      const [pw] = this.size();
      const k = this.view.w / pw;
      this.view = { ...this.view, x: this.view.x - (mid[0] - oldMid[0]) * k, y: this.view.y - (mid[1] - oldMid[1]) * k };
      if (distance > 0 && g.distance > 0) this.zoom(g.distance / distance, mid[0], mid[1]);
      g.distance = distance;
    }
  }

  up(e) {
    const g = this.gesture;
    const single = this.pointers.size === 1;
    this.pointers.delete(e.pointerId);
    if (g && g.kind === "pan" && g.tap && single) {
      const [bx, by] = this.point(e.clientX, e.clientY);
      this.onTap(Math.floor(bx / CELL), -Math.floor(by / CELL), bx, by);
    }
    if (this.pointers.size === 0) this.gesture = null;
    else if (this.pointers.size === 1) {
      const [rest] = this.pointers.values();
      this.gesture = { kind: "pan", start: rest, view: { ...this.view }, tap: false };
    }
  }

  cancel(e) {
    this.pointers.delete(e.pointerId);
    if (this.pointers.size === 0) this.gesture = null;
  }

  wheel(e) {
    e.preventDefault();
    this.zoom(Math.exp(e.deltaY * 0.002), e.clientX, e.clientY);
  }
}
