// The clive serve page: a list of sessions, a live terminal per pane, approvals as buttons, and recordings
// played back. Everything arrives over WebSockets that reconnect with backoff and resume where they left off.
import { Terminal } from "/assets/xterm.mjs";

const $ = (id) => document.getElementById(id);
const decoder = new TextDecoder();

// What tests and curious people can read from the console.
const state = { view: null, link: "down", replay: null };
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
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}${this.url()}`);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      this.attempt = 0;
      setLink("up");
    };
    ws.onmessage = (event) => this.onMessage(event.data);
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      setLink("down");
      // 4404: the pane or recording is gone for good; reconnecting cannot bring it back.
      if (event.code === 4404) {
        this.closed = true;
        if (this.onGone) this.onGone();
        return;
      }
      if (this.closed) return;
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
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}

function setLink(value) {
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
    const card = el("a", "card");
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

function showList() {
  $("where").textContent = "";
  let last = null;
  const link = new Link(
    () => "/ws/sessions",
    (data) => {
      const message = JSON.parse(data);
      if (message.type !== "sessions") return;
      last = { message, receivedAt: Date.now() };
      renderSessions(message, last.receivedAt);
    },
  );
  const ticker = setInterval(() => last && renderSessions(last.message, last.receivedAt), 10000);
  return () => {
    clearInterval(ticker);
    link.close();
  };
}

// ---- a live pane ------------------------------------------------------------------------------------------

// Fits the terminal's columns to the width available by choosing the font size (the pane's size is tmux's).
function fit(term, container) {
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
    theme: { background: "#000000" },
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
    term: newTerminal(container, 80, 24),
  };
  state.view = view;
  $("where").textContent = key;
  $("pane-note").hidden = true;
  $("approval").hidden = true;
  const onResize = () => fit(view.term, container);
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
      if (message.type === "ended") return ended();
      if (message.type === "error") return note(message.message);
    },
    () => ended(),
  );

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
      fit(view.term, container);
    }
    view.term.write(message.data);
  }

  function status(message) {
    $("pane-title").textContent = message.title;
    $("where").textContent = message.title;
    $("pane-agent").textContent = message.agent || message.command || "";
    const stateNode = $("pane-state");
    stateNode.className = `state ${message.state}`;
    stateNode.textContent = message.state === "waiting" ? "waiting for approval" : message.state;
    view.access = message.access;
    $("pane-access").textContent = message.access === "input" ? "input on" : message.access === "approvals" ? "approvals only" : "read-only";
    view.term.options.disableStdin = message.access !== "input";
    view.term.options.cursorBlink = message.access === "input";
    showDialog(message.dialog);
  }

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
    link.close();
    view.term.dispose();
    state.view = null;
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
setLink("down");
route();
