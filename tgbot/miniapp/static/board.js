// The maze in SVG, drawn as tgbot/presenter/tiles.py draws the PNG: the same geometry, colours
// and icons (tunnels from an edge to a pivot, rocks on dead ends, a bridge's planks,
// ladders, doors, crystals, goals, card backs), cells of 80 units, north up.
// A cell (x, y) has its top-left corner at (80x, -80y).

export const CELL = 80;
const N = 1, E = 2, S = 4, W = 8;
const SIDES = [N, E, S, W];
const VECTOR = { [N]: [0, -1], [E]: [1, 0], [S]: [0, 1], [W]: [-1, 0] };

const COLOR = {
  background: "#1c1816", grid: "#342d28", axis: "#d6ccba", card: "#745034",
  cardEdge: "#3e2a1c", start: "#306884", tunnel: "#f6e6be", tunnelUnder: "#c4b084",
  tunnelEdge: "#241a14", rock: "#686870", rockEdge: "#1a1a1e", back: "#323a68",
  backEdge: "#96a0dc", gold: "#f6c424", goldEdge: "#785000", stone: "#96969c",
  ladder: "#e8a23c", blue: "#2874ec", green: "#24b048", crystal: "#78ecfc",
  crystalEdge: "#145a78", mark: "#ffdd00", white: "#ffffff", question: "#ebebfa",
  keyhole: "#141414",
};

const bits = (mask) => SIDES.filter((side) => mask & side).length;
const f = (n) => Math.round(n * 100) / 100;

function cornerPoint(segment, size, shift) {
  let dx = 0, dy = 0;
  for (const side of SIDES) if (segment & side) { dx += VECTOR[side][0]; dy += VECTOR[side][1]; }
  return [size / 2 + dx * shift * size, size / 2 + dy * shift * size];
}

function stubEnd(side, size) {
  const [vx, vy] = VECTOR[side];
  return [size / 2 + vx * size * 0.27, size / 2 + vy * size * 0.27];
}

function edgePoint(side, size) {
  const [vx, vy] = VECTOR[side];
  return [size / 2 + (vx * size) / 2, size / 2 + (vy * size) / 2];
}

// Where a segment's tunnels meet: a double curve's two bends meet in their own corners.
function pivot(segments, index, size) {
  const segment = segments[index];
  const through = segments.filter((s) => bits(s) > 1).length;
  if (through >= 2 && bits(segment) === 2 && segment !== (N | S) && segment !== (E | W)) {
    return cornerPoint(segment, size, 0.2);
  }
  if (bits(segment) === 1 && segments.length > 1) return stubEnd(segment, size);
  return [size / 2, size / 2];
}

const line = (a, b, color, width) =>
  `<line x1="${f(a[0])}" y1="${f(a[1])}" x2="${f(b[0])}" y2="${f(b[1])}" stroke="${color}" stroke-width="${f(width)}"/>`;
const circle = (c, r, fill, extra = "") =>
  `<circle cx="${f(c[0])}" cy="${f(c[1])}" r="${f(r)}" fill="${fill}" ${extra}/>`;
const polygon = (points, fill, stroke, width) =>
  `<polygon points="${points.map((p) => `${f(p[0])},${f(p[1])}`).join(" ")}" fill="${fill}"` +
  (stroke ? ` stroke="${stroke}" stroke-width="${width}" stroke-linejoin="round"` : "") + "/>";

function rock(at, band) {
  const [x, y] = at, r = band * 0.62;
  const points = [
    [x - r, y + r * 0.2], [x - r * 0.5, y - r * 0.8], [x + r * 0.3, y - r * 0.9],
    [x + r, y - r * 0.1], [x + r * 0.7, y + r * 0.8], [x - r * 0.4, y + r * 0.9],
  ];
  return polygon(points, COLOR.rock, COLOR.rockEdge, 2) +
    line([x - r * 0.4, y - r * 0.2], [x + r * 0.3, y + r * 0.3], COLOR.rockEdge, 2);
}

function openEdge(start, band, size, fill) {
  const [x0, y0] = start, half = band / 2, depth = Math.max(2, Math.floor(size / 20));
  if (x0 === 0 || x0 === size) {
    const xa = x0 === 0 ? 0 : size - depth;
    return `<rect x="${f(xa)}" y="${f(y0 - half)}" width="${depth}" height="${f(band)}" fill="${fill}"/>`;
  }
  const ya = y0 === 0 ? 0 : size - depth;
  return `<rect x="${f(x0 - half)}" y="${f(ya)}" width="${f(band)}" height="${depth}" fill="${fill}"/>`;
}

function tunnels(segments, size, stubMark) {
  const band = Math.max(6, Math.floor(size * 0.28));
  const outline = Math.max(2, Math.floor(size / 22));
  const bridge = segments.includes(N | S) && segments.includes(E | W);
  // A bridge: the E–W tunnel first, the N–S one over it with a heavier outline.
  const order = segments.map((_, i) => i).sort((a, b) => (segments[a] === (N | S)) - (segments[b] === (N | S)));
  let out = "";
  for (const index of order) {
    const segment = segments[index];
    const end = pivot(segments, index, size);
    const legs = SIDES.filter((side) => segment & side).map((side) => edgePoint(side, size));
    const dead = bits(segment) === 1 && segments.length > 1;
    const over = bridge && segment === (N | S);
    const under = bridge && segment === (E | W);
    const edge = over ? outline * 2 : outline;
    const fill = under ? COLOR.tunnelUnder : COLOR.tunnel;
    for (const [width, color] of [[band + 2 * edge, COLOR.tunnelEdge], [band, fill]]) {
      for (const start of legs) {
        out += line(start, end, color, width);
        if (!dead) out += circle(end, width / 2, color);
      }
    }
    for (const start of legs) out += openEdge(start, band, size, fill);
    if (over) {
      const c = size / 2, half = band / 2;
      for (const k of [-1, 0, 1]) {
        const y = c + k * band * 0.4;
        out += line([c - half, y], [c + half, y], COLOR.cardEdge, Math.max(1, Math.floor(size / 40)));
      }
    }
    if (dead || (stubMark && segments.length === 1 && bits(segment) === 1)) out += rock(end, band);
  }
  return out;
}

function ladder(at, size) {
  const [x, y] = at, halfH = size * 0.2, halfW = size * 0.09;
  const width = Math.max(2, Math.floor(size / 22));
  let out = line([x - halfW, y - halfH], [x - halfW, y + halfH], COLOR.ladder, width);
  out += line([x + halfW, y - halfH], [x + halfW, y + halfH], COLOR.ladder, width);
  for (let i = 0; i < 4; i++) {
    const ry = y - halfH + (i + 0.5) * ((2 * halfH) / 4);
    out += line([x - halfW, ry], [x + halfW, ry], COLOR.ladder, Math.max(1, width - 1));
  }
  return out;
}

function door(at, size, color) {
  const [x, y] = at, r = size * 0.16, k = r * 0.28;
  return `<rect x="${f(x - r)}" y="${f(y - r)}" width="${f(2 * r)}" height="${f(2 * r)}" rx="${f(r / 3)}" fill="${color}" stroke="${COLOR.white}" stroke-width="2"/>` +
    `<ellipse cx="${f(x)}" cy="${f(y - k * 0.6)}" rx="${f(k)}" ry="${f(k)}" fill="${COLOR.keyhole}"/>` +
    polygon([[x - k * 0.6, y], [x + k * 0.6, y], [x, y + r * 0.65]], COLOR.keyhole);
}

function treasure(at, size) {
  const [x, y] = at, r = size * 0.17;
  return [[-0.7, 0.35], [0.7, 0.35], [0, -0.35]]
    .map(([dx, dy]) => circle([x + dx * r, y + dy * r], r * 0.7, COLOR.gold, `stroke="${COLOR.goldEdge}" stroke-width="2"`))
    .join("");
}

function stone(at, size) {
  const [x, y] = at;
  return `<ellipse cx="${f(x)}" cy="${f(y)}" rx="${f(size * 0.17)}" ry="${f(size * 0.12)}" fill="${COLOR.stone}" stroke="${COLOR.rockEdge}" stroke-width="2"/>`;
}

export function diamond(at, r, width = 2) {
  const [x, y] = at;
  return polygon([[x, y - r * 1.3], [x + r, y], [x, y + r * 1.3], [x - r, y]], COLOR.crystal, COLOR.crystalEdge, width) +
    line([x - r * 0.5, y - r * 0.25], [x + r * 0.5, y - r * 0.25], COLOR.white, 1);
}

// A corner whose two sides hold no dead end (top-left first).
function freeCorner(segments, size) {
  const stubs = segments.length > 1 ? segments.filter((s) => bits(s) === 1).reduce((a, b) => a | b, 0) : 0;
  for (const [sides, fx, fy] of [[N | W, 0.19, 0.23], [N | E, 0.81, 0.23], [S | W, 0.19, 0.77], [S | E, 0.81, 0.77]]) {
    if (!(stubs & sides)) return [size * fx, size * fy];
  }
  return [size * 0.19, size * 0.23];
}

function crystals(count, size, segments, atEnd) {
  const r = size * (atEnd ? 0.2 : 0.16);
  const [x, y] = atEnd ? [size / 2, size / 2] : freeCorner(segments, size);
  const step = x < size / 2 ? 2.2 * r : -2.2 * r;
  let out = "";
  for (let i = 0; i < count; i++) out += diamond([x + i * step, y], r, Math.max(2, Math.floor(size / 30)));
  return out;
}

function cardRect(size, fill, stroke, width) {
  const inset = Math.max(1, Math.floor(size / 32)) + width / 2;
  return `<rect x="${f(inset)}" y="${f(inset)}" width="${f(size - 2 * inset)}" height="${f(size - 2 * inset)}" rx="${Math.floor(size / 10)}" fill="${fill}" stroke="${stroke}" stroke-width="${width}"/>`;
}

function back(size, peek) {
  const c = size / 2;
  if (!peek) {
    return cardRect(size, COLOR.back, COLOR.backEdge, 2) +
      `<text x="${c}" y="${c}" font-size="${size / 2}" fill="${COLOR.question}" text-anchor="middle" dominant-baseline="central" font-family="sans-serif">?</text>`;
  }
  // What this player's map showed: still face down, with what lies under it drawn large.
  const edge = peek === "goal_treasure" ? COLOR.gold : COLOR.backEdge;
  const inner = peek === "goal_treasure" ? treasure([c, c], size) : stone([c, c], size * 1.6);
  return cardRect(size, COLOR.back, edge, Math.max(3, Math.floor(size / 16))) + inner +
    `<text x="${size * 0.8}" y="${size * 0.2}" font-size="${size / 4}" fill="${COLOR.question}" text-anchor="middle" dominant-baseline="central" font-family="sans-serif">?</text>`;
}

// One card as SVG markup in a size × size box: ``shape`` is the server's shape_json.
export function tile(kind, rotated, faceUp, peek, shape, size = CELL) {
  if (!faceUp || !shape) return back(size, faceUp ? null : peek);
  const segments = shape.segments[rotated ? 1 : 0];
  const fill = kind === "start" ? COLOR.start : COLOR.card;
  const edge = kind === "goal_treasure" ? COLOR.gold : shape.crystals ? COLOR.crystal : COLOR.cardEdge;
  let out = cardRect(size, fill, edge, Math.max(2, Math.floor(size / 24)));
  const stub = segments.length === 1 && bits(segments[0]) === 1;
  out += tunnels(segments, size, !(shape.ladder || shape.crystals));
  const c = size / 2;
  if (shape.door) out += door(pivot(segments, shape.door_segment, size), size, COLOR[shape.door]);
  if (shape.ladder) out += ladder([c, c], size);
  if (kind === "goal_treasure") out += treasure([c, c], size);
  else if (kind.startsWith("goal_stone")) out += stone([c, c], size);
  if (shape.crystals) out += crystals(shape.crystals, size, segments, stub);
  return out;
}

// The bounds drawn: every card and extra cell, with a margin of one empty cell.
export function bounds(board, extra = []) {
  const cells = [...board.map((t) => [t.x, t.y]), ...extra];
  if (!cells.length) cells.push([0, 0]);
  const xs = cells.map((c) => c[0]), ys = cells.map((c) => c[1]);
  return { minX: Math.min(...xs) - 1, maxX: Math.max(...xs) + 1, minY: Math.min(...ys) - 1, maxY: Math.max(...ys) + 1 };
}

export const origin = (x, y) => [x * CELL, -y * CELL];

// The board's cards, grid and crystal count (markup for the tiles layer).
export function boardMarkup(state, box) {
  const { minX, maxX, minY, maxY } = box;
  const left = minX * CELL, right = (maxX + 1) * CELL, top = -maxY * CELL, bottom = (-minY + 1) * CELL;
  let out = `<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" fill="${COLOR.background}"/>`;
  for (let x = minX; x <= maxX + 1; x++) out += line([x * CELL, top], [x * CELL, bottom], COLOR.grid, 1);
  for (let y = -maxY; y <= -minY + 1; y++) out += line([left, y * CELL], [right, y * CELL], COLOR.grid, 1);
  let gems = 0;
  for (const t of state.board) {
    const shape = state.shapes[t.kind];
    if (t.up && shape) gems += shape.crystals;
    const [px, py] = origin(t.x, t.y);
    out += `<g transform="translate(${px},${py})" data-cell="${t.x},${t.y}">${tile(t.kind, t.rotated, t.up, t.peek, shape)}</g>`;
  }
  if (gems) {
    // The crystals on the table, in the top-left cell, which the margin keeps empty.
    const [px, py] = origin(minX, maxY);
    out += diamond([px + CELL * 0.3, py + CELL * 0.5], CELL * 0.16, 2) +
      `<text x="${px + CELL * 0.68}" y="${py + CELL * 0.5}" font-size="${CELL * 0.4}" fill="${COLOR.crystal}" stroke="${COLOR.crystalEdge}" stroke-width="2" paint-order="stroke" text-anchor="middle" dominant-baseline="central" font-family="sans-serif" font-weight="bold">${gems}</text>`;
  }
  return out;
}

export function frame(x, y, color, width, extra = "") {
  const [px, py] = origin(x, y), w = width / 2;
  return `<rect x="${px + w}" y="${py + w}" width="${CELL - width}" height="${CELL - width}" fill="none" stroke="${color}" stroke-width="${width}" ${extra}/>`;
}

export { COLOR };
