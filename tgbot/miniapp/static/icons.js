// Small pictures drawn in SVG: the three tools, and action cards (with the legend's icon).
import { COLOR, CELL } from "./board.js";

const TOOL_PATHS = {
  // A pickaxe: a curved head on a handle.
  pickaxe: `<path d="M4 9 Q12 2 20 9 L18.5 10.5 Q12 6 5.5 10.5 Z" fill="currentColor"/><rect x="11" y="6.5" width="2.4" height="15" rx="1" fill="currentColor" transform="rotate(18 12 14)"/>`,
  // A lantern: a ring, a cap, a glass with a flame, a base.
  lantern: `<circle cx="12" cy="3.5" r="2" fill="none" stroke="currentColor" stroke-width="1.5"/><rect x="7" y="5.5" width="10" height="2.5" rx="1" fill="currentColor"/><rect x="8" y="8" width="8" height="10" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.8"/><path d="M12 10 Q14.5 13 12 16 Q9.5 13 12 10 Z" fill="currentColor"/><rect x="6.5" y="18" width="11" height="2.5" rx="1" fill="currentColor"/>`,
  // A mine cart: a tub on two wheels.
  cart: `<path d="M3 8 H21 L18.5 16 H5.5 Z" fill="currentColor"/><circle cx="8" cy="19" r="2.3" fill="currentColor"/><circle cx="16" cy="19" r="2.3" fill="currentColor"/>`,
};

export const TOOLS = ["pickaxe", "lantern", "cart"];

// A tool as an inline SVG element's markup; broken: red and struck through.
export function toolIcon(tool, broken, size = 18) {
  const color = broken ? "#ff5a4e" : "currentColor";
  const strike = broken ? `<line x1="3" y1="21" x2="21" y2="3" stroke="#ff5a4e" stroke-width="2.6" stroke-linecap="round"/>` : "";
  return `<svg class="tool${broken ? " broken" : ""}" width="${size}" height="${size}" viewBox="0 0 24 24" style="color:${color}" aria-hidden="true">${TOOL_PATHS[tool]}${strike}</svg>`;
}

// Each action card's icon, as the server sends it from the one legend
// (tgbot.presenter.icons.ACTION), so the page and the chat show the same.
let EMOJI = {};

export function setActionIcons(icons) {
  EMOJI = { ...icons };
}

// An action card's picture in a CELL × CELL box.
export function actionCard(kind) {
  const broken = kind.startsWith("broken_");
  const repair = kind.startsWith("repair_");
  const fill = broken ? "#7a2a22" : repair ? "#2a6a3a" : "#3a3f6e";
  let inner;
  if (broken || repair) {
    const tools = TOOLS.filter((tool) => kind.includes(tool));
    const size = tools.length > 1 ? 30 : 44;
    const gap = tools.length > 1 ? 34 : 0;
    inner = tools
      .map((tool, i) => {
        const x = CELL / 2 - size / 2 + (i - (tools.length - 1) / 2) * gap;
        return `<g transform="translate(${x},${CELL / 2 - size / 2 - 4}) scale(${size / 24})" style="color:${COLOR.tunnel}">${TOOL_PATHS[tool]}</g>`;
      })
      .join("");
    inner += broken
      ? `<line x1="16" y1="66" x2="64" y2="14" stroke="#ff5a4e" stroke-width="6" stroke-linecap="round"/>`
      : `<path d="M26 62 L36 72 L56 50" fill="none" stroke="#9cff8a" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/>`;
  } else {
    inner = `<text x="${CELL / 2}" y="${CELL / 2}" font-size="40" text-anchor="middle" dominant-baseline="central">${EMOJI[kind] || "?"}</text>`;
  }
  return `<rect x="3" y="3" width="74" height="74" rx="8" fill="${fill}" stroke="${COLOR.cardEdge}" stroke-width="3"/>${inner}`;
}
