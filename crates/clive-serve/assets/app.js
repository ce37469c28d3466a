// The clive serve page: a list of sessions, a live terminal per pane, approvals as buttons, and recordings
// played back. Everything arrives over WebSockets that reconnect with backoff and resume where they left off.
// A pane can be fitted to this screen (the agent redraws for its width), its history searched, and a pane
// that waits for approval calls for attention (title, list, one browser notification per dialog).
import { Terminal } from "/assets/xterm.mjs";

const $ = (id) => document.getElementById(id);
const decoder = new TextDecoder();

// What tests and curious people can read from the console.
const state = { view: null, link: "down", replay: null, listing: null, notifications: [], dialogsSeen: [] };
window.clive = state;

// A WebSocket that reconnects until closed, backing off from 250 ms to 5 s. `url()` is asked again on every
// attempt, so a reconnect can carry the place to resume from.
class Link {
  constructor(url, onMessage, onGone) {
    this.url = url;
    this.onMessage = onMessage;
    this.onGone = onGone;
    this.attempt = 0;
    this.closed = false;
    this.connect();
  }
  connect() {
    if (this.closed) return;
    setLink(this, "down");
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}${this.url()}`);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      this.attempt = 0;
      setLink(this, "up");
    };
    ws.onmessage = (event) => this.onMessage(event.data);
    ws.onclose = (event) => {
      if (this.ws !== ws || this.closed) return;
      // 4404: the pane or recording is gone for good; reconnecting cannot bring it back.
      if (event.code === 4404) {
        this.closed = true;
        setLink(this, "closed");
        if (this.onGone) this.onGone();
        return;
      }
      setLink(this, "down");
      const delay = Math.min(5000, 250 * 2 ** this.attempt) * (0.75 + Math.random() / 4);
      this.attempt += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    };
    this.ws = ws;
  }
  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }
  close() {
    this.closed = true;
    setLink(this, "closed");
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}

// The indicator shows "live" when every open link is up.
const linksDown = new Set();
function setLink(link, value) {
  if (value === "down") linksDown.add(link);
  else linksDown.delete(link);
  value = linksDown.size === 0 && value !== "init" ? "up" : "down";
  state.link = value;
  $("link").className = `link ${value}`;
  $("link").textContent = value === "up" ? "live" : "reconnecting…";
}

function age(seconds) {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// ---- the session list -------------------------------------------------------------------------------------

// Ages count on between listings: the server's clock, carried forward by this one.
function renderSessions(message, receivedAt) {
  const now = message.now + Math.floor((Date.now() - receivedAt) / 1000);
  const list = $("sessions");
  list.replaceChildren();
  if (message.panes.length === 0) {
    list.append(el("p", "empty", "No sessions yet. Start one with `clive \"task\"`."));
  }
  for (const pane of message.panes) {
    const card = el("a", pane.state === "waiting" ? "card attention" : "card");
    card.href = `#/pane/${pane.key}`;
    card.dataset.key = pane.key;
    const top = el("div", "top");
    const name = pane.panes_in_session > 1 ? `${pane.session} ${pane.pane}` : pane.session;
    top.append(el("span", "name", name));
    top.append(el("span", "agent", pane.agent || pane.command));
    top.append(el("span", `state ${pane.state}`, pane.state === "waiting" ? "waiting for approval" : pane.state));
    if (pane.started) top.append(el("span", "age", age(Math.max(0, now - pane.started))));
    card.append(top);
    card.append(el("div", "task", pane.task || (pane.catalog !== "clive" ? pane.catalog : "")));
    list.append(card);
  }
  const archived = $("archived");
  archived.replaceChildren();
  $("archived-title").hidden = message.archived.length === 0;
  for (const item of message.archived) {
    const card = el("a", "card");
    card.href = `#/replay/${encodeURIComponent(item.id)}`;
    const top = el("div", "top");
    top.append(el("span", "name", item.id));
    top.append(el("span", "state finished", item.recording ? "recording" : "log"));
    top.append(el("span", "age", age(Math.max(0, now - item.modified))));
    card.append(top);
    card.append(el("div", "task", item.title || ""));
    archived.append(card);
  }
}

// The sessions socket stays open in every view: a pane that starts waiting calls for attention wherever the
// person is. The list view renders from it.
let renderList = null;
function followSessions() {
  new Link(
    () => "/ws/sessions",
    (data) => {
      const message = JSON.parse(data);
      if (message.type !== "sessions") return;
      state.listing = { message, receivedAt: Date.now() };
      attend(message);
      if (renderList) renderList();
      showChanges();
    },
  );
}

function showList() {
  $("where").textContent = "";
  renderList = () => state.listing && renderSessions(state.listing.message, state.listing.receivedAt);
  renderList();
  const ticker = setInterval(renderList, 10000);
  return () => {
    clearInterval(ticker);
    renderList = null;
  };
}

// What the open pane's task has changed in its working directory, from the listing: created, modified and
// deleted files with their sizes, in the order applied. Hidden while there is nothing.
function showChanges() {
  const box = $("pane-changes");
  const pane = state.view && state.listing && state.listing.message.panes.find((p) => p.key === state.view.key);
  const changes = (pane && pane.changes) || [];
  box.hidden = changes.length === 0;
  $("pane-changes-count").textContent = changes.length === 1 ? "1 file changed" : `${changes.length} files changed`;
  $("pane-changes-list").replaceChildren(...changes.map((line) => el("li", null, line)));
}

// ---- attention --------------------------------------------------------------------------------------------

// The page's title counts the panes waiting for approval; the tab shows it even when another tab is in front.
let baseTitle = "clive";
function setTitle(base) {
  if (base !== undefined) baseTitle = base;
  const waiting = state.listing ? state.listing.message.panes.filter((p) => p.state === "waiting").length : 0;
  document.title = waiting > 0 ? `⏳ ${waiting} waiting · ${baseTitle}` : baseTitle;
}

// Dialogs this page has handled (notified, or found notified by another page of this browser).
const handledDialogs = new Set();
const NOTIFIED_KEY = "clive-notified-dialogs";

// Claims a dialog for notification across every page of this server in this browser: the check and the
// mark happen under one lock (Web Locks), so two pages that see the same listing raise one notification.
async function claimDialog(id) {
  const claim = () => {
    let notified = [];
    try {
      notified = JSON.parse(localStorage.getItem(NOTIFIED_KEY) || "[]");
    } catch {
      notified = [];
    }
    if (notified.includes(id)) return false;
    notified.push(id);
    localStorage.setItem(NOTIFIED_KEY, JSON.stringify(notified.slice(-500)));
    return true;
  };
  return navigator.locks ? navigator.locks.request(NOTIFIED_KEY, claim) : claim();
}

function attend(message) {
  setTitle();
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  for (const pane of message.panes) {
    if (!pane.dialog) continue;
    // Dialog ids are never reused by a server; the pane key keeps them apart across catalogs anyway.
    const id = `${pane.key}/${pane.dialog}`;
    if (handledDialogs.has(id)) continue;
    handledDialogs.add(id);
    claimDialog(id).then((claimed) => {
      state.dialogsSeen.push(id);
      if (!claimed) return;
      const title = `${pane.session}: ${pane.agent || pane.command} is waiting for approval`;
      const record = { id, title, body: pane.question || "", shown: false, error: null };
      // The tag makes the browser replace rather than add, should two servers' pages ever race.
      const notification = new Notification(title, { body: record.body, tag: id });
      notification.onshow = () => (record.shown = true);
      notification.onerror = (e) => (record.error = String(e));
      notification.onclick = () => {
        window.focus();
        location.hash = `#/pane/${pane.key}`;
        notification.close();
      };
      state.notifications.push(record);
    });
  }
}

function showNotifyButton() {
  const button = $("notify");
  const supported = "Notification" in window;
  button.hidden = !supported || Notification.permission !== "default";
  button.onclick = async () => {
    await Notification.requestPermission();
    showNotifyButton();
    if (state.listing) attend(state.listing.message);
  };
}

// ---- a live pane ------------------------------------------------------------------------------------------

// The font size of a pane fitted to this screen: readable on a phone.
const FIT_FONT = 13;

// Fits the terminal's columns to the width available by choosing the font size (the pane's size is tmux's).
// A pane fitted to this screen keeps the font it was measured with.
function fit(term, container, fixed) {
  if (fixed) {
    if (term.options.fontSize !== fixed) term.options.fontSize = fixed;
    return;
  }
  const probe = document.createElement("canvas").getContext("2d");
  probe.font = "100px monospace";
  const ratio = probe.measureText("W".repeat(10)).width / 1000;
  const width = container.clientWidth - 10;
  const size = Math.max(5, Math.min(15, Math.floor((width / (term.cols * ratio)) * 10) / 10));
  if (term.options.fontSize !== size) term.options.fontSize = size;
}

function newTerminal(container, cols, rows) {
  const term = new Terminal({
    cols,
    rows,
    scrollback: 20000,
    fontFamily: "ui-monospace, 'DejaVu Sans Mono', monospace",
    fontSize: 13,
    cursorBlink: false,
    disableStdin: true,
    // A search match is shown as the selection: amber, also while the search box has the focus.
    theme: { background: "#000000", selectionBackground: "#d2992299", selectionInactiveBackground: "#d2992299" },
  });
  container.replaceChildren();
  term.open(container);
  fit(term, container);
  return term;
}

function showPane(key) {
  const container = $("terminal");
  const view = {
    key,
    epoch: null,
    offset: 0,
    access: "read_only",
    dialog: null,
    answered: null,
    snapshots: 0,
    gaps: 0,
    ended: false,
    // The size in force and who set it (`this_page`, `another_page`, or null: tmux's own).
    size: null,
    fit: null,
    // This page asks for the pane to take its screen's size (and asks again when the screen changes).
    fitting: false,
    fitReplies: [],
    search: { query: "", matches: [], index: -1 },
    term: newTerminal(container, 80, 24),
  };
  state.view = view;
  showChanges();
  $("where").textContent = key;
  $("pane-note").hidden = true;
  $("approval").hidden = true;
  $("fit").textContent = "Fit to screen";
  $("pane-size").textContent = "";
  $("search-input").value = "";
  $("search-count").textContent = "";
  const fixedFont = () => (view.fit === "this_page" ? FIT_FONT : null);
  let refit = null;
  const onResize = () => {
    fit(view.term, container, fixedFont());
    // A phone turned sideways: ask again for the new size, once the screen settles.
    if (view.fitting) {
      clearTimeout(refit);
      refit = setTimeout(requestFit, 200);
    }
  };
  window.addEventListener("resize", onResize);

  const resumeUrl = () =>
    view.epoch === null
      ? `/ws/pane/${key}`
      : `/ws/pane/${key}?epoch=${view.epoch}&offset=${view.offset}`;

  const link = new Link(
    resumeUrl,
    (data) => {
      if (typeof data !== "string") return output(data);
      const message = JSON.parse(data);
      if (message.type === "snapshot") return snapshot(message);
      if (message.type === "status") return status(message);
      if (message.type === "answer") return answered(message);
      if (message.type === "fit") return fitted(message);
      if (message.type === "ended") return ended();
      if (message.type === "error") return note(message.message);
    },
    () => ended(),
  );
  // A reconnected socket is a new viewer to the server: a standing fit request is made again.
  const connect = link.connect.bind(link);
  link.connect = () => {
    connect();
    if (view.fitting && link.ws) link.ws.addEventListener("open", requestFit, { once: true });
  };

  // A chunk of output: 8 bytes of stream offset, then the bytes. Anything already shown is skipped; a gap
  // would mean lost output, so the link starts over from a snapshot (the server never sends one).
  function output(buffer) {
    const offset = Number(new DataView(buffer).getBigUint64(0));
    let bytes = new Uint8Array(buffer, 8);
    if (offset > view.offset) {
      view.gaps += 1;
      view.epoch = null;
      link.ws.close();
      return;
    }
    bytes = bytes.subarray(Math.min(bytes.length, view.offset - offset));
    view.offset += bytes.length;
    if (bytes.length > 0) view.term.write(bytes);
  }

  function snapshot(message) {
    view.snapshots += 1;
    view.epoch = message.epoch;
    view.offset = message.offset;
    view.term.reset();
    if (view.term.cols !== message.cols || view.term.rows !== message.rows) {
      view.term.resize(message.cols, message.rows);
      fit(view.term, container, fixedFont());
    }
    view.term.write(message.data);
    if (view.search.query) view.term.write("", () => runSearch(false));
  }

  function status(message) {
    $("pane-title").textContent = message.title;
    $("where").textContent = message.title;
    setTitle(message.title);
    $("pane-agent").textContent = message.agent || message.command || "";
    const stateNode = $("pane-state");
    stateNode.className = `state ${message.state}`;
    stateNode.textContent = message.state === "waiting" ? "waiting for approval" : message.state;
    view.access = message.access;
    $("pane-access").textContent = message.access === "input" ? "input on" : message.access === "approvals" ? "approvals only" : "read-only";
    view.term.options.disableStdin = message.access !== "input";
    view.term.options.cursorBlink = message.access === "input";
    view.size = { cols: message.cols, rows: message.rows };
    view.fit = message.fit;
    const by = message.fit === "this_page" ? " · fitted here" : message.fit === "another_page" ? " · fitted by another page" : "";
    $("pane-size").textContent = `${message.cols}×${message.rows}${by}`;
    fit(view.term, container, fixedFont());
    showDialog(message.dialog);
  }

  // ---- fitting the pane to this screen ----

  // Columns × rows of this page's terminal at the fitted font: the width of the terminal's box, the height
  // from its top to the bottom of the window.
  function screenSize() {
    fit(view.term, container, FIT_FONT);
    const core = view.term._core;
    const cell = core && core._renderService && core._renderService.dimensions.css.cell;
    const probe = document.createElement("canvas").getContext("2d");
    probe.font = `${FIT_FONT}px ${view.term.options.fontFamily}`;
    const width = cell && cell.width > 0 ? cell.width : probe.measureText("W".repeat(10)).width / 10;
    const height = cell && cell.height > 0 ? cell.height : Math.ceil(FIT_FONT * 1.2);
    // The box's padding and border, and room for the scrollbar.
    const usableWidth = container.clientWidth - 8 - 14;
    const top = container.getBoundingClientRect().top + window.scrollY;
    const usableHeight = window.innerHeight - top - 8 - 2 - 8;
    return {
      cols: Math.max(20, Math.floor(usableWidth / width)),
      rows: Math.max(5, Math.floor(usableHeight / height)),
    };
  }

  function requestFit() {
    const size = screenSize();
    view.fitting = true;
    $("fit").textContent = "Unfit";
    if (!link.send({ type: "fit", cols: size.cols, rows: size.rows })) return;
    view.asked = size;
  }

  function fitted(message) {
    view.fitReplies.push(message);
    if (message.result === "applied") return;
    view.fitting = false;
    $("fit").textContent = "Fit to screen";
    fit(view.term, container, fixedFont());
    note(`Not fitted: ${message.reason}`);
  }

  $("fit").onclick = () => {
    if (view.fitting) {
      view.fitting = false;
      $("fit").textContent = "Fit to screen";
      link.send({ type: "unfit" });
      return;
    }
    $("pane-note").hidden = true;
    requestFit();
  };

  // ---- searching the history ----

  // Every match of the query in the terminal's buffer (the server's history came with the snapshot, and
  // everything printed since), top to bottom. Rows the terminal wrapped are searched as one line.
  function findAll(query, caseSensitive) {
    const buffer = view.term.buffer.active;
    const cols = view.term.cols;
    const needle = caseSensitive ? query : query.toLowerCase();
    const matches = [];
    let row = 0;
    while (row < buffer.length) {
      const start = row;
      let text = buffer.getLine(row).translateToString(false);
      row += 1;
      while (row < buffer.length && buffer.getLine(row).isWrapped) {
        text += buffer.getLine(row).translateToString(false);
        row += 1;
      }
      const hay = caseSensitive ? text : text.toLowerCase();
      for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
        matches.push({ row: start + Math.floor(at / cols), col: at % cols, length: query.length });
      }
    }
    return matches;
  }

  // Searches again; `jump` moves to the newest match (a new query), otherwise the current one is kept.
  function runSearch(jump) {
    const search = view.search;
    search.query = $("search-input").value;
    search.caseSensitive = $("search-case").checked;
    if (!search.query) {
      search.matches = [];
      search.index = -1;
      view.term.clearSelection();
      $("search-count").textContent = "";
      return;
    }
    search.matches = findAll(search.query, search.caseSensitive);
    if (jump || search.index >= search.matches.length) search.index = search.matches.length - 1;
    show();
  }

  function show() {
    const search = view.search;
    if (search.matches.length === 0) {
      view.term.clearSelection();
      $("search-count").textContent = "no match";
      return;
    }
    const match = search.matches[search.index];
    view.term.select(match.col, match.row, match.length);
    view.term.scrollToLine(Math.max(0, match.row - Math.floor(view.term.rows / 2)));
    $("search-count").textContent = `${search.index + 1} of ${search.matches.length}`;
  }

  // Older (up) or newer (down) match, wrapping around.
  function step(delta) {
    const search = view.search;
    if (search.query !== $("search-input").value || search.matches.length === 0) return runSearch(true);
    search.index = (search.index + delta + search.matches.length) % search.matches.length;
    show();
  }

  $("search-input").oninput = () => runSearch(true);
  $("search-case").onchange = () => runSearch(true);
  $("search-form").onsubmit = (event) => {
    event.preventDefault();
    step(-1);
  };
  $("search-input").onkeydown = (event) => {
    if (event.key === "Enter" && event.shiftKey) {
      event.preventDefault();
      step(1);
    } else if (event.key === "Escape") {
      $("search-input").value = "";
      runSearch(true);
    }
  };
  $("search-older").onclick = () => step(-1);
  $("search-newer").onclick = () => step(1);
  view.searchFor = (query) => {
    $("search-input").value = query;
    runSearch(true);
    return view.search;
  };

  // ---- approvals ----

  function showDialog(dialog) {
    view.dialog = dialog;
    const box = $("approval");
    if (!dialog) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    $("approval-prompt").textContent = dialog.prompt;
    const choices = $("approval-choices");
    choices.replaceChildren();
    dialog.choices.forEach((choice, index) => {
      const button = el("button", "choice", choice.label);
      button.type = "button";
      button.dataset.choice = String(index);
      button.disabled = view.access === "read_only" || view.answered === dialog.id;
      if (view.access === "read_only") button.title = "read-only: start clive serve with --allow-input or --allow-approvals";
      button.onclick = () => {
        // One click per dialog from this page; the server refuses a second one from anywhere.
        view.answered = dialog.id;
        for (const b of choices.querySelectorAll("button")) b.disabled = true;
        link.send({ type: "answer", dialog: dialog.id, choice: index });
      };
      choices.append(button);
    });
  }

  function answered(message) {
    if (message.result !== "sent") note(`Not sent: ${message.reason}`);
  }

  function ended() {
    view.ended = true;
    note("This pane is gone. Its recording, if any, is listed under Archived.");
  }

  function note(text) {
    $("pane-note").textContent = text;
    $("pane-note").hidden = false;
  }

  view.term.onData((data) => {
    if (view.access === "input") link.send({ type: "input", data });
  });

  return () => {
    window.removeEventListener("resize", onResize);
    clearTimeout(refit);
    // Closing the socket withdraws this page's fit request: the pane takes back its size.
    link.close();
    view.term.dispose();
    state.view = null;
    setTitle("clive");
  };
}

// ---- recordings -------------------------------------------------------------------------------------------

function parseCast(text) {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const header = JSON.parse(lines[0]);
  const events = [];
  for (const line of lines.slice(1)) {
    try {
      const [time, kind, data] = JSON.parse(line);
      if (kind === "o") events.push([time, data]);
    } catch {
      // A last line cut short by a killed recorder.
    }
  }
  return { header, events };
}

function showReplay(id) {
  $("where").textContent = `recording ${id}`;
  $("replay-title").textContent = id;
  const container = $("replay-terminal");
  const log = $("replay-log");
  const player = { id, done: false, term: null, timer: null, index: 0, paused: false, cast: null };
  state.replay = player;
  let cancelled = false;

  const speed = () => Number($("replay-speed").value);
  function step() {
    const { events } = player.cast;
    if (player.paused || cancelled) return;
    if (speed() === 0) {
      while (player.index < events.length) player.term.write(events[player.index++][1]);
    }
    if (player.index >= events.length) {
      player.done = true;
      $("replay-play").textContent = "Play";
      return;
    }
    player.term.write(events[player.index][1]);
    player.index += 1;
    if (player.index >= events.length) return step();
    const gap = Math.min(2, Math.max(0, events[player.index][0] - events[player.index - 1][0]));
    player.timer = setTimeout(step, (gap * 1000) / speed());
  }
  function restart() {
    clearTimeout(player.timer);
    player.term.reset();
    player.index = 0;
    player.done = false;
    player.paused = false;
    $("replay-play").textContent = "Pause";
    step();
  }
  $("replay-play").onclick = () => {
    if (player.done) return restart();
    player.paused = !player.paused;
    $("replay-play").textContent = player.paused ? "Play" : "Pause";
    if (!player.paused) step();
  };
  $("replay-restart").onclick = () => restart();

  fetch(`/api/recordings/${encodeURIComponent(id)}`).then(async (response) => {
    if (cancelled) return;
    if (response.ok) {
      player.cast = parseCast(await response.text());
      log.hidden = true;
      container.hidden = false;
      player.term = newTerminal(container, player.cast.header.width, player.cast.header.height);
      restart();
      return;
    }
    const logResponse = await fetch(`/api/logs/${encodeURIComponent(id)}`);
    container.hidden = true;
    log.hidden = false;
    log.textContent = logResponse.ok ? await logResponse.text() : `Nothing archived under ${id}.`;
    player.done = true;
  });
  return () => {
    cancelled = true;
    clearTimeout(player.timer);
    if (player.term) player.term.dispose();
    state.replay = null;
  };
}

// ---- routing ----------------------------------------------------------------------------------------------

let leave = () => {};
function route() {
  leave();
  const hash = location.hash.replace(/^#\/?/, "");
  const [kind, ...rest] = hash.split("/");
  const arg = decodeURIComponent(rest.join("/"));
  $("list-view").hidden = kind === "pane" || kind === "replay";
  $("pane-view").hidden = kind !== "pane";
  $("replay-view").hidden = kind !== "replay";
  if (kind === "pane" && arg) leave = showPane(arg);
  else if (kind === "replay" && arg) leave = showReplay(arg);
  else leave = showList();
}
window.addEventListener("hashchange", route);
setLink(null, "init");
showNotifyButton();
followSessions();
route();
