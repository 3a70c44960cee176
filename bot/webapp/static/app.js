// The live table: plain JavaScript, no library. Telegram's launch parameters arrive in
// location.hash (tgWebAppData: the signed initData; tgWebAppThemeParams: the colours); the page
// trades the initData for a session token, then follows the table by Server-Sent Events.
const API = new URL("api/", new URL(".", location.href));
const hash = new URLSearchParams(location.hash.slice(1));
const initData = hash.get("tgWebAppData") || "";
let token = "", texts = {}, state = null, events = null, busy = false, lastActed = "";
const received = [];  // the versions the stream brought, in order (the browser tests read them)

function postEvent(type, data = {}) {
  // Telegram's clients take these events from a Mini App (the same calls telegram-web-app.js makes).
  try {
    if (window.TelegramWebviewProxy) window.TelegramWebviewProxy.postEvent(type, JSON.stringify(data));
    else if (window.external && "notify" in window.external)
      window.external.notify(JSON.stringify({ eventType: type, eventData: data }));
    else if (window.parent !== window)
      window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "*");
  } catch (e) { /* outside Telegram: nothing to tell */ }
}

function theme() {
  try {
    const params = JSON.parse(hash.get("tgWebAppThemeParams") || "{}");
    // Dark or light as Telegram's own script decides it: by the brightness of the background.
    const bg = /^#([0-9a-f]{6})$/i.exec(params.bg_color || "");
    if (bg) {
      const n = parseInt(bg[1], 16), [r, g, b] = [n >> 16, (n >> 8) & 255, n & 255];
      document.documentElement.dataset.scheme = 0.299 * r + 0.587 * g + 0.114 * b < 120 ? "dark" : "light";
    }
    const names = { bg_color: "--tg-bg", text_color: "--tg-text", hint_color: "--tg-hint",
      button_color: "--tg-button", button_text_color: "--tg-button-text",
      secondary_bg_color: "--tg-secondary-bg" };
    for (const [k, v] of Object.entries(params))
      if (names[k] && /^#[0-9a-fA-F]{3,8}$/.test(v)) document.documentElement.style.setProperty(names[k], v);
  } catch (e) { /* no theme: the page's own colours */ }
}

const $ = (id) => document.getElementById(id);
const t = (key, vars = {}) => (texts[key] || key).replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? "");

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function cardEl(card) {
  const e = el("span", "card", card.label);
  if (/[HD]$/.test(card.code)) e.classList.add("red");
  e.dataset.code = card.code;
  return e;
}

let toastTimer = 0;
function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, text.length > 80 ? 7000 : 2600);
}

function banner(text) {
  const box = $("banner");
  box.textContent = text || "";
  box.hidden = !text;
}

// Where each seat sits on the screen: the viewer at the bottom, the partner at the top.
function places(n, me) {
  const base = me ?? 0;
  if (n === 3) return { [base]: "bottom", [(base + 1) % 3]: "left", [(base + 2) % 3]: "right" };
  return { [base]: "bottom", [(base + 1) % 4]: "left", [(base + 2) % 4]: "top", [(base + 3) % 4]: "right" };
}

function render(s) {
  state = s;
  const deal = s.deal;
  $("trump").textContent = deal && deal.trump ? `${t("trump")}: ${deal.trump}` : "";
  $("dealno").textContent = deal ? `№${deal.no}` : "";
  $("score").textContent = s.match ? `${t("penalty")}: ${s.match.penalty.join(" : ")}` : "";
  $("tally").replaceChildren(...(s.match && s.match.tally ? s.match.tally : []).map(
    (pair) => el("div", "", `${pair.names}: ${pair.tally}`)));
  const where = places(s.seats.length, s.seat);
  for (const pos of ["top", "left", "right", "bottom"]) $(`seat-${pos}`).replaceChildren();
  for (const seat of s.seats) {
    const box = $(`seat-${where[seat.seat]}`);
    if (!box) continue;
    box.classList.toggle("turn", !!deal && deal.to_act === seat.seat);
    const meta = [];
    if (seat.you) meta.push(t("you"));
    if (seat.level) meta.push(seat.level);
    if (seat.away) meta.push(t("away"));  // the name already has its 💤
    if (seat.cards !== null && seat.cards !== undefined) meta.push(`🂠 ${seat.cards}`);
    box.replaceChildren(el("div", "name", seat.name), el("div", "meta", meta.join(" · ")));
  }
  const trick = $("trick");
  trick.replaceChildren();
  const slots = { bottom: "b", left: "l", top: "t", right: "r" };
  for (const play of deal ? deal.trick : []) {
    const c = cardEl(play);
    c.style.gridArea = slots[where[play.seat]];
    trick.append(c);
  }
  // The brag: the cards laid so far in each seat's place, the face-down ones as backs.
  for (const laid of deal && deal.brag ? deal.brag : []) {
    const box = el("span", "laid");
    box.style.gridArea = slots[where[laid.seat]];
    for (const card of laid.cards) box.append(card ? cardEl(card) : el("span", "card back", "🂠"));
    trick.append(box);
  }
  renderHand(s);
  renderAway(s);
  startClock(s);
  const last = $("last-trick");
  last.replaceChildren(...(deal && deal.last_trick.length ? deal.last_trick.map(cardEl) : [el("span", "", t("no_last_trick"))]));
  $("table-text").textContent = s.table_text || "";
  $("last").hidden = !deal;  // nothing to show once the match is over (its result is in the middle)
  $("text").hidden = !s.table_text && !s.hand;
  $("hand-text").textContent = s.hand ? s.hand.text : "";
  if (s.seat === null) banner(t("watching"));
  else banner("");
}

// "I'm back", while the turn timers have the person away and the bot plays for them: a bar of its
// own at the foot of the screen, drawn anew only when it changes, so it stands still under a
// finger while the bot's moves redraw the hand (a hand that shrinks would move a button below it).
let awayShown = "";
function renderAway(s) {
  const back = s.hand && s.hand.back;
  const key = JSON.stringify(back ? [back, s.hand.away] : null);
  if (key === awayShown) return;
  awayShown = key;
  const bar = $("away");
  bar.replaceChildren();
  bar.hidden = !back;
  document.body.classList.toggle("away-open", !!back);
  if (!back) return;
  bar.append(el("div", "note", s.hand.away || ""));
  const button = el("button", "back", back.text);
  button.addEventListener("click", () => act(back.data));
  bar.append(button);
}

let handShown = "";
function renderHand(s) {
  // Drawn anew only when it changed: a card or button being tapped is not swapped for a copy of
  // itself while the others play (a tap on a detached button would be lost).
  const key = JSON.stringify(s.hand && [s.hand.cards, s.hand.buttons]);
  if (key === handShown) return;
  handShown = key;
  const hand = $("hand"), decisions = $("decisions");
  hand.replaceChildren();
  decisions.replaceChildren();
  if (!s.hand) return;
  // Each card of the hand: a tap is its DM button's (play, brag, swap's return, tick, or why not).
  for (const card of s.hand.cards) {
    const c = cardEl(card);
    if (card.kind) c.classList.add(card.kind === "act" ? "legal" : card.kind);
    if (card.data) {
      c.setAttribute("role", "button");
      c.addEventListener("click", () => act(card.data));
    }
    hand.append(c);
  }
  // Every other decision the DM's keyboard offers (exchange, swap, declare, the give's and the
  // discard's confirm, the mirror's cut, the brag's kind, two cards bragged at once, the hint).
  for (const row of s.hand.buttons) {
    const others = row.filter((b) => !b.card && b.data);
    if (!others.length) continue;
    const line = el("div", "row");
    for (const b of others) {
      const button = el("button", "", b.text);
      button.addEventListener("click", () => act(b.data));
      line.append(button);
    }
    decisions.append(line);
  }
}

// The time left of the turn: counted down on the page from what the server said was left when it
// sent the state; at zero the state is read again (a tick may have held the timer off).
let turnEnds = 0, clockTimer = 0, refetchTimer = 0;
function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function statusText(s) {
  const deal = s.deal;
  if (s.status === "lobby") return t("lobby");
  if (s.status === "over") return s.result || t("over");
  let text = "";
  // A decision other than a card: what the DM hand asks (or whose decision it is), in its words.
  if (s.hand && s.hand.prompt && deal && deal.phase !== "play") text = s.hand.prompt;
  else if (s.hand && s.hand.your_turn) text = t("your_turn");
  else if (deal && deal.to_act !== null) text = t("turn_of", { name: s.seats[deal.to_act].name });
  if (text && deal && deal.turn && turnEnds) {
    const left = (turnEnds - Date.now()) / 1000;
    text += " · " + (left > 0 ? t("time_left", { time: clock(left) }) : t("time_up"));
  }
  return text;
}

function tickClock() {
  if (!state) return;
  $("status").textContent = statusText(state);
  if (turnEnds && Date.now() >= turnEnds) {
    clearInterval(clockTimer);
    clockTimer = 0;
    $("status").classList.remove("hurry");
    const version = state.version;
    clearTimeout(refetchTimer);
    refetchTimer = setTimeout(async () => {
      if (!state || state.version !== version) return;
      const { status, body } = await api(`state?token=${encodeURIComponent(token)}`).catch(() => ({}));
      if (status === 200 && state && body.version >= state.version) render(body);
    }, 2500);
  } else {
    $("status").classList.toggle("hurry", !!turnEnds && turnEnds - Date.now() < 10000);
  }
}

function startClock(s) {
  const turn = s.deal && s.deal.turn;
  turnEnds = turn ? Date.now() + turn.left * 1000 : 0;
  clearInterval(clockTimer);
  clockTimer = turnEnds ? setInterval(tickClock, 500) : 0;
  tickClock();
}

async function api(path, options = {}) {
  const response = await fetch(new URL(path, API), options);
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

async function act(data) {
  if (busy) return;
  busy = true;
  lastActed = data;
  try {
    const { body } = await api("act", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token, data }) });
    if (body.ok) postEvent("web_app_trigger_haptic_feedback", { type: "impact", impact_style: "light" });
    if (body.text) toast(body.text);  // a refusal in the DM's words, or a hint
  } catch (e) {
    toast(t("offline"));
  } finally {
    busy = false;
  }
}

function follow() {
  if (events) events.close();
  const url = new URL("events", API);
  url.searchParams.set("token", token);
  if (state) url.searchParams.set("version", String(state.version));
  events = new EventSource(url);
  events.addEventListener("state", (e) => {
    const s = JSON.parse(e.data);
    received.push(s.version);
    const wasMine = state && state.hand && state.hand.your_turn;
    if (!state || s.version >= state.version || s.table_id !== state.table_id) render(s);
    if (s.hand && s.hand.your_turn && !wasMine)
      postEvent("web_app_trigger_haptic_feedback", { type: "notification", notification_type: "success" });
    banner(s.seat === null ? t("watching") : "");
  });
  events.addEventListener("gone", () => { events.close(); banner(t("gone")); });
  events.addEventListener("expired", () => { events.close(); start(); });
  events.onerror = () => { if (events.readyState !== EventSource.OPEN) banner(t("offline")); };
  events.onopen = () => banner(state && state.seat === null ? t("watching") : "");
}

async function start() {
  theme();
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  postEvent("web_app_setup_swipe_behavior", { allow_vertical_swipe: false });
  // Without initData (not opened by Telegram) the server refuses the session and says how to open it.
  const { status, body } = await api("session", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ init_data: initData, link: new URLSearchParams(location.search).get("t") || "" }) });
  // Unsigned, too old or forged: the page was not opened by Telegram (or long ago): say how to open it.
  if (status !== 200) { document.body.replaceChildren(el("p", "", `${body.text || ""} (${status})`)); return; }
  token = body.token;
  texts = body.texts;
  document.documentElement.lang = body.lang;
  document.title = t("title");
  $("last-title").textContent = t("last_trick");
  $("text-title").textContent = t("table");
  follow();
}

document.addEventListener("visibilitychange", () => {
  // A phone that slept: reconnect at once (the stream sends the whole state, so nothing is missed).
  if (document.visibilityState === "visible" && token && (!events || events.readyState === EventSource.CLOSED)) follow();
});

// For the browser tests: the same taps a person makes, and the data of the last one.
window.kozel = { act, lastActed: () => lastActed, state: () => state, received: () => received.slice() };
start();
