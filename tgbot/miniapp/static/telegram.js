// Telegram's side of the page, guarded: inside Telegram, telegram-web-app.js (loaded from
// telegram.org) gives initData, theme colours, the back button and haptics. When it
// cannot load (no network, a plain browser, the offline demo), the page reads the same
// launch parameters from its address (#tgWebAppData=...&tgWebAppThemeParams=...) as the
// script does, and every call below does nothing.

const SCRIPT = "https://telegram.org/js/telegram-web-app.js";
const LOAD_TIMEOUT_MS = 3000;
// Full screen on phones only: on a desktop it would cover the chats beside the window.
const FULL_SCREEN_PLATFORMS = ["android", "ios"];
const SIDES = ["top", "right", "bottom", "left"];

const launch = new URLSearchParams(location.hash.slice(1));
let app = null;

function loadScript() {
  return new Promise((resolve) => {
    const script = document.createElement("script");
    const timer = setTimeout(() => resolve(false), LOAD_TIMEOUT_MS);
    script.src = SCRIPT;
    script.onload = () => { clearTimeout(timer); resolve(true); };
    script.onerror = () => { clearTimeout(timer); resolve(false); };
    document.head.appendChild(script);
  });
}

// Load Telegram's script if it can be had; never fails.
export async function start() {
  if (!window.Telegram?.WebApp) await loadScript();
  app = window.Telegram?.WebApp || null;
  try {
    app?.ready();
    app?.expand();
    // A pan on the board must not swipe the Mini App closed.
    if (app?.isVersionAtLeast?.("7.7")) app.disableVerticalSwipes();
  } catch (error) {
    console.warn("Telegram WebApp call failed", error);
  }
  applyTheme();
  app?.onEvent?.("themeChanged", applyTheme);
  fullScreen();
}

// Telegram's full-screen mode (Bot API 8.0) on a phone, and its safe areas: the
// device's (a notch, the home bar) and, inside it, the one Telegram's own buttons
// cover in full screen. The page keeps its content inside both.
function fullScreen() {
  if (!app?.isVersionAtLeast?.("8.0")) return;
  for (const event of ["safeAreaChanged", "contentSafeAreaChanged", "fullscreenChanged", "viewportChanged"]) {
    app.onEvent?.(event, applyInsets);
  }
  applyInsets();
  if (FULL_SCREEN_PLATFORMS.includes(app.platform) && !app.isFullscreen) {
    try {
      app.requestFullscreen();
    } catch (error) {
      console.warn("requestFullscreen failed", error);
    }
  }
}

// --inset-top ... : the device's safe area plus Telegram's content safe area, in px.
function applyInsets() {
  const device = app?.safeAreaInset || {};
  const content = app?.contentSafeAreaInset || {};
  const root = document.documentElement.style;
  for (const side of SIDES) {
    const px = (Number(device[side]) || 0) + (Number(content[side]) || 0);
    root.setProperty(`--inset-${side}`, `${px}px`);
  }
  document.documentElement.dataset.fullscreen = app?.isFullscreen ? "yes" : "no";
}

export function initData() {
  return app?.initData || launch.get("tgWebAppData") || "";
}

// The game to open: a direct link's start_param, else ?game= of a web_app button's URL.
export function startParam() {
  const fromInit = new URLSearchParams(initData()).get("start_param");
  return app?.initDataUnsafe?.start_param || fromInit || new URLSearchParams(location.search).get("game") || "";
}

export function language() {
  try {
    const user = JSON.parse(new URLSearchParams(initData()).get("user") || "{}");
    return user.language_code || "";
  } catch {
    return "";
  }
}

// Theme colours as CSS variables (--tg-theme-bg-color ...), as telegram-web-app.js sets.
function applyTheme() {
  let params = app?.themeParams;
  if (!params || !Object.keys(params).length) {
    try {
      params = JSON.parse(launch.get("tgWebAppThemeParams") || "{}");
    } catch {
      params = {};
    }
  }
  const root = document.documentElement.style;
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === "string") root.setProperty(`--tg-theme-${key.replaceAll("_", "-")}`, value);
  }
  if (app?.colorScheme) document.documentElement.dataset.scheme = app.colorScheme;
}

let backHandler = null;

// Telegram's back button while a choice is open; ``handler`` null hides it.
export function backButton(handler) {
  const button = app?.BackButton;
  if (!button || !app.isVersionAtLeast?.("6.1")) return;
  try {
    if (backHandler) button.offClick(backHandler);
    backHandler = handler;
    if (handler) {
      button.onClick(handler);
      button.show();
    } else {
      button.hide();
    }
  } catch (error) {
    console.warn("BackButton failed", error);
  }
}

// kind: "select" (a tap that chose something), "success", "error".
export function haptic(kind) {
  const feedback = app?.HapticFeedback;
  if (!feedback || !app.isVersionAtLeast?.("6.1")) return;
  try {
    if (kind === "select") feedback.selectionChanged();
    else feedback.notificationOccurred(kind);
  } catch (error) {
    console.warn("HapticFeedback failed", error);
  }
}
