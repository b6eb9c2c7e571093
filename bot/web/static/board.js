// The Tavla web board: shows the game the server describes (drawn by draw.js) and sends the
// player's actions.
// Plain JavaScript, no build step. Nothing here decides a rule: legal destinations, buttons
// and refusals all come from the server, which asks the game service and core.
"use strict";

(function () {
  const el = window.TavlaDraw.el;
  const DRAG_START = 8; // pixels a pointer moves before a press becomes a drag
  const SETTLE_MS = 500; // new buttons under a finger that just pressed one wait this long
  const TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js";

  const page = {
    game: null,
    auth: "",
    lang: null,
    layout: null, // the geometry for the viewer's home side
    layouts: null, // /api/layout: both home sides and every theme
    stack: null, // on a phone held upright: the taller board's checkers a point (0: none)
    style: { theme: null, home: "right", default_theme: "classic" },
    texts: {},
    state: null, // the state shown: the server's, or the board walked to this turn (below)
    base: null, // the server's newest state
    walk: null, // the turn walked on the page: { node, steps } (see walkTo)
    selected: null,
    busy: false,
    tg: null,
    stream: "",
    telegram: false,
    dark: false,
    drag: null,
    source: null, // the live updates' EventSource
    choosing: false, // two ways to one point are on offer as buttons
    errorAt: null, // the version at which a refusal was said (kept while it stands)
    settleUntil: 0, // performance.now() before which the buttons take no tap
    retryDelay: 0, // ms before the live updates are asked for again (grows while refused)
  };

  // -- launch parameters: Telegram's script if present, else the URL itself -------------------

  function launchParams() {
    const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
    const query = new URLSearchParams(location.search);
    const tg = window.Telegram && window.Telegram.WebApp;
    let initData = tg && tg.initData ? tg.initData : hash.get("tgWebAppData") || "";
    let start = hash.get("tgWebAppStartParam") || "";
    if (initData && !start) {
      start = new URLSearchParams(initData).get("start_param") || "";
    }
    // A group's link carries "g<game>_<signature>"; the signature is checked by the server.
    const game = query.get("game") || hash.get("game") || (/^g(\d+)/.exec(start) || [])[1] || "";
    let auth = "";
    if (hash.get("link")) auth = "link " + hash.get("link");
    else if (hash.get("watch")) auth = "watch " + hash.get("watch");
    else if (initData) auth = "tma " + initData;
    let theme = null;
    try {
      theme = JSON.parse(hash.get("tgWebAppThemeParams") || "null");
    } catch (err) {
      theme = null;
    }
    return { game: /^\d+$/.test(game) ? game : null, auth, inTelegram: Boolean(initData), tg, theme };
  }

  // -- helpers -----------------------------------------------------------------------------------

  function html(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function word(key, params) {
    let text = page.texts[key] || key;
    for (const [k, v] of Object.entries(params || {})) text = text.replace("{" + k + "}", v);
    return text;
  }

  function api(path, options) {
    const headers = { Authorization: page.auth };
    if (options && options.body) headers["Content-Type"] = "application/json";
    const lang = page.lang ? "?lang=" + page.lang : "";
    return fetch("/api/game/" + page.game + path + lang, { ...(options || {}), headers });
  }

  // While its line of actions is long the server answers "busy" (503, {"busy": true}, and
  // when to ask again): nothing was done, so the same request goes again after that wait
  // (spread a little, as a crowd's retries), the player told meanwhile.
  async function patiently(path, options) {
    for (;;) {
      const resp = await api(path, options);
      if (resp.status !== 503) return resp;
      const answer = await resp.clone().json().catch(() => null);
      if (!answer || !answer.busy) return resp;
      say(word("busy_retrying"));
      const wait = Math.max(1, Number(resp.headers.get("Retry-After")) || 1) * 1000;
      await new Promise((resolve) => setTimeout(resolve, wait * (1 + Math.random() / 2)));
    }
  }

  function haptic(kind) {
    const h = page.tg && page.tg.HapticFeedback;
    if (!h) return;
    if (kind === "error") h.notificationOccurred("error");
    else if (kind === "success") h.notificationOccurred("success");
    else h.impactOccurred("light");
  }

  function say(text, error) {
    const line = document.getElementById("message");
    if (!line) return;
    // A refusal stays until the game changes or the player does something else: a state
    // that arrives again unchanged (a reconnection) does not wipe it.
    page.errorAt = error && page.state ? page.state.version : null;
    line.textContent = text || "";
    line.classList.toggle("error", Boolean(error));
  }

  // -- the page's frame ------------------------------------------------------------------------

  function buildPage() {
    document.body.textContent = "";
    const app = html("main", { id: "app" }, document.body);
    const top = html("div", { class: "strip", id: "strip-top" }, app);
    html("span", { class: "name" }, top);
    html("span", { class: "mark" }, top);
    html("span", { class: "info" }, top);
    const wrap = html("div", { id: "board-wrap" }, app);
    const L = page.layout;
    const svg = el("svg", { id: "board", viewBox: `0 0 ${L.width} ${L.height}` }, wrap);
    svg.addEventListener("pointerdown", onPointerDown);
    svg.addEventListener("pointermove", onPointerMove);
    svg.addEventListener("pointerup", onPointerUp);
    svg.addEventListener("pointercancel", cancelDrag);
    const bottom = html("div", { class: "strip", id: "strip-bottom" }, app);
    html("span", { class: "name" }, bottom);
    html("span", { class: "mark" }, bottom);
    html("span", { class: "info" }, bottom);
    // Between the board and the controls: the contest, the last plays (what happened since
    // the reader last chose stands out), then what the game waits for. On a phone this
    // takes the room left and shows the newest plays that fit, so the board stays at the
    // top and the controls at the bottom.
    const info = html("section", { id: "info" }, app);
    html("p", { id: "contest" }, info);
    const last = html("div", { id: "last" }, info);
    // Its room changes with the buttons under it (the resignation levels take more).
    if (window.ResizeObserver) new ResizeObserver(fitLast).observe(last);
    html("p", { id: "caption" }, info);
    // What the player acts with comes last, toward the bottom, where a thumb reaches it.
    const hand = html("div", { id: "hand" }, app);
    if (window.ResizeObserver) new ResizeObserver(() => fitBoard()).observe(hand);
    html("p", { id: "offline", role: "status" }, hand, word("connection_lost"));
    html("p", { id: "message", role: "status", "aria-live": "polite" }, hand);
    html("div", { id: "controls" }, hand);
    const foot = html("div", { id: "foot" }, hand);
    // Hidden until the state says the reader holds a seat that may resign.
    const resign = html("button", { id: "resign", type: "button", "data-action": "resign", hidden: "" }, foot);
    resign.textContent = word("resign");
    resign.addEventListener("click", onResign);
    document.body.classList.add("nobody"); // no seat known yet: no player's controls
  }

  // A link that opens no board (wrong, foreign or expired): say so, and what to do, in
  // place of a board with empty bars.
  function refuse() {
    document.body.textContent = "";
    document.body.classList.add("refused");
    const box = html("main", { id: "refused", role: "alert" }, document.body);
    html("h1", {}, box, word("no_access_title"));
    html("p", {}, box, word("no_access"));
    document.body.classList.add("ready");
  }

  // -- drawing -----------------------------------------------------------------------------------

  // The player's own board theme from /settings; without one (and for spectators) the
  // bot's default, or its dark theme on a dark screen (Telegram's, or the system's).
  function theme() {
    const themes = page.layouts.themes;
    if (page.style.theme && themes[page.style.theme]) return themes[page.style.theme];
    const dark = page.telegram
      ? page.dark
      : window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    return themes[dark ? "dark" : page.style.default_theme] || themes.classic;
  }

  // The geometry with the viewer's home board on the side they chose in /settings, on the
  // board as tall as a phone's room allows (``fitBoard``).
  function useStyle(style) {
    if (style) page.style = style;
    const L = page.layouts;
    const board = (page.stack && L.tall[String(page.stack)]) || L;
    page.layout = { ...L, ...board, ...(board.homes[page.style.home] || board.homes.right) };
    document.body.dataset.home = page.style.home;
  }

  // A phone held upright has more room under the board than its lines need early in a game:
  // the board takes it (a taller board, its points longer and showing more checkers), keeping
  // room for the contest, a few plays and what the game waits for. Chosen again when the
  // screen or the room of the buttons changes (the resignation levels take more for a
  // moment); a prompt of one line or two does not move it (board.css keeps two).
  const UPRIGHT = "(max-width: 699px) and (orientation: portrait)";
  function fitBoard() {
    const wrap = document.getElementById("board-wrap");
    const info = document.getElementById("info");
    if (!wrap || !info || !page.state || !page.state.board) return;
    let stack = 0;
    if (window.matchMedia && window.matchMedia(UPRIGHT).matches) {
      const room = wrap.getBoundingClientRect().height + info.getBoundingClientRect().height;
      const line = parseFloat(getComputedStyle(info).fontSize) * 1.35;
      // Kept for the lines: the contest, three plays and a caption of two lines, with the
      // gaps between them (board.css: 6 px between plays, 8 px between the parts, 4 above).
      const keep = 6 * line + 2 * 6 + 2 * 8 + 4;
      const tall = page.layouts.tall;
      for (const n of Object.keys(tall).map(Number).sort((a, b) => b - a)) {
        if ((wrap.clientWidth * tall[n].height) / tall[n].width + keep <= room) {
          stack = n;
          break;
        }
      }
    }
    if (stack !== page.stack) {
      page.stack = stack;
      useStyle(null);
      draw();
      fitLast(); // the lines' room changed with the board: the plays that fit, now
    }
  }

  function painter() {
    return window.TavlaDraw.painter(page.layout, theme());
  }

  function draw() {
    document.body.dataset.theme = theme().name;
    const svg = document.getElementById("board");
    svg.setAttribute("viewBox", `0 0 ${page.layout.width} ${page.layout.height}`);
    svg.dataset.stack = page.layout.max_stack; // lets a test see which board is drawn
    painter().paint(svg, page.state, page.selected);
  }


  function render() {
    const s = page.state;
    const b = s.board;
    document.documentElement.lang = s.lang;
    document.title = word("title");
    document.body.dataset.version = s.version; // lets a test (or a curious user) see it
    document.body.dataset.walked = String(page.walk ? page.walk.steps.length : 0); // steps made on the page
    document.body.classList.toggle("no-board", !b);
    document.body.classList.toggle("nobody", s.seat === null);
    if (!b) {
      document.getElementById("resign").hidden = true;
      document.getElementById("controls").textContent = "";
      say(word("not_started"));
      return;
    }
    if (s.style) useStyle(s.style);
    if (page.selected !== null && !(s.legal || {})[String(page.selected)]) page.selected = null;
    for (const [id, color] of [["strip-top", b.top], ["strip-bottom", b.bottom]]) {
      const strip = document.getElementById(id);
      strip.dataset.color = color;
      strip.classList.toggle("to-move", b.to_move === color);
      strip.querySelector(".name").textContent = b.names[color];
      // The winner of a finished game, marked as the picture marks them.
      strip.classList.toggle("winner", b.winner === color);
      strip.querySelector(".mark").textContent = b.winner === color ? "★ " + word("winner") : "";
      const score = b.length > 1 ? ` · ${b.score[color]}/${b.length}` : "";
      // "Pips: 167", not "167 pips": no count noun to put in the right plural form.
      strip.querySelector(".info").textContent = word("pip_count", { n: b.pips[color] }) + score;
    }
    draw();
    renderButtons();
    const resign = document.getElementById("resign");
    resign.hidden = !s.can_resign;
    document.body.classList.toggle("spectator", s.seat === null);
    document.getElementById("contest").textContent = s.contest || "";
    const last = document.getElementById("last");
    last.textContent = "";
    const news = new Set(s.news || []);
    for (const line of s.plays || []) html("p", { class: news.has(line) ? "play news" : "play" }, last, line);
    fitLast();
    // Over: how it ended takes the place of what the game waits for, and stays there while
    // the message above the buttons says what a press did ("The analysis is on its way").
    const caption = document.getElementById("caption");
    caption.textContent = s.over ? s.result || word("over") : s.action_line || "";
    caption.classList.toggle("result", Boolean(s.over));
    if (!page.busy && page.errorAt !== s.version) prompt();
    if (page.stack === null) fitBoard(); // the first board: as tall as the room allows
  }

  // The last plays that fit their room, the newest kept: an older one that does not fit
  // whole is left out rather than shown cut in half under the score line.
  function fitLast() {
    const last = document.getElementById("last");
    if (!last) return;
    const lines = [...last.children];
    for (const line of lines) line.hidden = false;
    const top = last.getBoundingClientRect().top;
    for (const line of lines.slice(0, -1)) {
      if (line.getBoundingClientRect().top >= top - 0.5) break;
      line.hidden = true;
    }
  }

  // The game's buttons for the player (the server's list: only what the rules allow now).
  function renderButtons() {
    const s = page.state;
    // Resign under the game's buttons; not under the resignation levels, which replace them.
    document.getElementById("resign").hidden = !s.can_resign;
    const controls = document.getElementById("controls");
    controls.textContent = "";
    delete controls.dataset.choosing;
    page.choosing = false;
    for (const name of s.buttons || []) {
      const label = word(name, { n: ((s.board && s.board.cube) || 1) * 2 });
      const button = html("button", { type: "button", "data-action": name, class: "action " + name }, controls, label);
      button.addEventListener("click", () => {
        // A second tap of a double tap must not press the button that the first one's
        // answer put under the finger (Confirm, then at once the computer's Double or Pass).
        if (performance.now() < page.settleUntil) return;
        if (name !== "undo" || !page.walk) act({ action: name }, true);
        else if (!page.busy) unwalk(); // the steps walked on the page alone
      });
    }
  }

  // What the page asks of its reader now.
  function prompt() {
    const s = page.state;
    if (s.over) say(""); // the result is the caption's
    else if (s.seat === null) say(word("spectator"));
    else if (s.my_turn && Object.keys(s.legal || {}).length) say(word("pick_checker"));
    else say(s.my_turn ? word("your_turn") : word("waiting"));
  }

  // -- input: tap a checker then a destination, or drag it ---------------------------------------

  function svgPoint(evt) {
    const svg = document.getElementById("board");
    const pt = svg.createSVGPoint();
    pt.x = evt.clientX;
    pt.y = evt.clientY;
    return pt.matrixTransform(svg.getScreenCTM().inverse());
  }

  function pointAt(evt) {
    const { x, y } = svgPoint(evt);
    const L = page.layout;
    const inside = (r) => x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3];
    if (inside(L.trays.bottom)) return 0;
    if (inside(L.bar)) return 25;
    for (let p = 1; p <= 24; p++) if (inside(L.points[p].column)) return p;
    return null;
  }

  function movable(point) {
    return page.state && page.state.my_turn && (page.state.legal || {})[String(point)] !== undefined;
  }

  function onPointerDown(evt) {
    if (page.busy || !page.state || page.state.seat === null) return;
    const point = pointAt(evt);
    if (point === null) return;
    evt.preventDefault();
    page.drag = { point, x: evt.clientX, y: evt.clientY, moving: false, ghost: null, id: evt.pointerId };
    document.getElementById("board").setPointerCapture(evt.pointerId);
  }

  function onPointerMove(evt) {
    const d = page.drag;
    if (!d || evt.pointerId !== d.id) return;
    if (!d.moving) {
      if (Math.hypot(evt.clientX - d.x, evt.clientY - d.y) < DRAG_START || !movable(d.point)) return;
      d.moving = true;
      page.selected = d.point;
      draw();
      const top = document.querySelector(`[data-top="${d.point}"]`);
      if (top) top.classList.add("lifted");
      const color = page.state.board.bottom;
      d.ghost = painter().checker(document.getElementById("board"), 0, 0, color, "", { class: "checker dragging " + color });
    }
    const { x, y } = svgPoint(evt);
    d.ghost.setAttribute("transform", `translate(${x} ${y})`);
  }

  function onPointerUp(evt) {
    const d = page.drag;
    if (!d || evt.pointerId !== d.id) return;
    page.drag = null;
    const target = pointAt(evt);
    if (d.moving) {
      if (target === null || target === d.point) {
        page.selected = null;
        draw(); // dropped off the board or where it started: back in its place
        return;
      }
      move(d.point, target);
      return;
    }
    tap(d.point);
  }

  function cancelDrag() {
    page.drag = null;
    draw();
  }

  function tap(point) {
    const s = page.state;
    if (page.selected !== null && page.selected !== point) {
      const dests = (s.legal || {})[String(page.selected)] || [];
      if (dests.includes(point)) {
        move(page.selected, point);
        return;
      }
    }
    showChoices([]);
    if (movable(point) && page.selected !== point) {
      page.selected = point;
      haptic("light");
      say(word("pick_target"));
    } else if (page.selected === point) {
      page.selected = null; // the same checker again: put back
      prompt();
    } else {
      const mine = s.board && s.board.points[point] && s.board.points[point].color === s.board.bottom;
      const onBar = point === 25 && s.board && s.board.bar[s.board.bottom];
      page.selected = null;
      if (s.my_turn && s.board.phase === "move" && (mine || onBar) && page.walk) {
        // The reason is the server's: the steps walked go to it, and its answer says why.
        act({ action: "move", steps: page.walk.steps }).then(() => {
          const reason = (page.state.stuck || {})[String(point)];
          if (reason) {
            say(reason, true);
            haptic("error");
          }
        });
      } else if (s.my_turn && s.board.phase === "move" && (mine || onBar)) {
        // Why not, as a refused move says it (core's reason), else as the chat says it.
        say((s.stuck || {})[String(point)] || word("cannot_move"), true);
        haptic("error");
      } else if (!page.busy) {
        prompt();
      }
    }
    draw();
  }

  // The checker on ``from`` to ``to``: core's move there (one die or several, as the state
  // lists them), or the player's choice when two ways lead there (one hitting on the way).
  // A drop where no move leads goes to the server as it is, which says why not.
  function move(from, to) {
    page.selected = null;
    const ways = ((page.state.moves || {})[String(from)] || []).filter((m) => m.to === to);
    if (ways.length > 1) {
      draw();
      showChoices(ways);
      return;
    }
    if (ways.length === 1) walkTo(ways[0]);
    else if (page.walk) {
      // No move leads there: the server says why; the steps walked go to it first, so that
      // they are kept.
      const steps = page.walk.steps;
      act({ action: "move", steps }).then(() => act({ action: "move", from, to }));
    } else act({ action: "move", from, to });
  }

  // -- the turn walked on the page ---------------------------------------------------------

  // A checker move made on the page's own board at once: the server told the boards each
  // move of the turn leads to (its "walk": core's moves, dice and pips at each). The steps
  // go to the server in one action when the turn is played out, or when a move leads past
  // the boards it told (it then answers with the walk from there).
  function walkTo(way) {
    const base = page.base;
    const nodes = (base && base.walk) || [];
    const walk = page.walk || { node: 0, steps: [] };
    const steps = walk.steps.concat(way.steps);
    const next = way.next === undefined || way.next === null ? null : nodes[way.next];
    if (!next) {
      page.state = walked(base, steps, next);
      render();
      act({ action: "move", steps });
      return;
    }
    page.walk = { node: way.next, steps };
    page.state = walked(base, steps, next);
    haptic("light");
    render();
  }

  // The state shown after ``steps`` made from ``base`` (``node``: the board they lead to,
  // null when not told: then the board only, while the server answers). The checkers move
  // as the steps say (a checker landed on goes to its bar: core's moves land on an opposing
  // checker only to hit it); the dice, pips and moves are the node's.
  function walked(base, steps, node) {
    const b = base.board;
    const me = b.bottom;
    const them = b.top;
    const points = b.points.map((p) => (p ? { ...p } : p));
    const bar = { ...b.bar };
    const off = { ...b.off };
    for (const [from, to] of steps) {
      if (from === 25) bar[me] -= 1;
      else if (points[from].count > 1) points[from].count -= 1;
      else points[from] = null;
      if (to === 0) off[me] += 1;
      else if (points[to] && points[to].color === them) {
        points[to] = { color: me, count: 1 }; // core's move lands there only when it hits
        bar[them] = (bar[them] || 0) + 1;
      } else points[to] = { color: me, count: ((points[to] && points[to].count) || 0) + 1 };
    }
    const board = { ...b, points, bar, off };
    const state = { ...base, board, buttons: ["undo"], stuck: {}, moves: {}, legal: {} };
    if (node) {
      board.dice_used = node.dice_used;
      board.pips = { [me]: node.pips[0], [them]: node.pips[1] };
      state.moves = node.moves;
      if (node.action_line) state.action_line = node.action_line;
      state.legal = Object.fromEntries(Object.entries(node.moves).map(([from, ways]) => [from, [...new Set(ways.map((w) => w.to))]]));
    }
    return state;
  }

  // Back to the board the server told: the steps walked on the page are taken back.
  function unwalk() {
    page.walk = null;
    page.state = page.base;
    page.selected = null;
    render();
  }

  // Two ways to one point: a button for each (written as the chat writes moves) where the
  // game's buttons were; any tap on the board takes them away.
  function showChoices(ways) {
    page.choosing = ways.length > 0;
    const controls = document.getElementById("controls");
    if (!ways.length) {
      if (controls.dataset.choosing) renderButtons();
      return;
    }
    controls.textContent = "";
    controls.dataset.choosing = "1";
    for (const way of ways) {
      const button = html("button", { type: "button", "data-way": way.text, class: "action way" }, controls, way.text);
      button.addEventListener("click", () => {
        showChoices([]);
        walkTo(way);
      });
    }
    say(word("choose_way"));
  }

  // Resign: the levels the rules allow here (the server's list, from core) where the
  // game's buttons were, then a confirmation of the one chosen.
  function onResign() {
    const levels = (page.state && page.state.resign_levels) || [];
    if (!levels.length) return;
    const controls = document.getElementById("controls");
    controls.textContent = "";
    controls.dataset.choosing = "1";
    document.getElementById("resign").hidden = true;
    page.choosing = true;
    page.selected = null;
    draw();
    for (const level of levels) {
      const button = html("button", { type: "button", "data-resign": level.kind, class: "action resign-level" }, controls, level.label);
      button.addEventListener("click", () => confirmResign(level));
    }
    const back = html("button", { type: "button", "data-action": "keep_playing", class: "action undo" }, controls, word("decline_resign"));
    back.addEventListener("click", () => {
      renderButtons();
      prompt();
    });
    say(word("resign_which"));
  }

  async function confirmResign(level) {
    const ok = await new Promise((resolve) => {
      if (page.tg && page.tg.showConfirm && page.tg.initData) page.tg.showConfirm(level.question, resolve);
      else resolve(window.confirm(level.question));
    });
    renderButtons();
    if (ok) act({ action: "resign", kind: level.kind });
    else prompt();
  }

  async function act(body, fromControls) {
    if (page.busy || !page.state) return;
    // A move walked on the page that the server refuses, or that never reaches it, is
    // taken back: the board shows the server's again.
    const onPage = page.state !== page.base;
    const back = () => {
      page.walk = null;
      if (onPage) page.state = page.base;
    };
    page.busy = true;
    document.body.classList.add("busy");
    const before = (page.state.buttons || []).join();
    try {
      const resp = await patiently("/action", { method: "POST", body: JSON.stringify({ ...body, version: page.state.version }) });
      if (!resp.ok) {
        // A refusal is not a lost connection: say what it is.
        page.busy = false;
        back();
        if (onPage) render();
        say(refusal(resp.status), true);
        haptic("error");
        draw();
        return;
      }
      const answer = await resp.json();
      page.busy = false;
      const after = (answer.state.buttons || []).join();
      // New buttons where a button was just pressed: a moment before they take a tap.
      // A move on the board shows the player is looking: no wait after it.
      page.settleUntil = fromControls && after && after !== before ? performance.now() + SETTLE_MS : 0;
      document.body.dataset.settleUntil = String(page.settleUntil); // for a test to wait on
      back();
      accept(answer.state);
      if (answer.ok) {
        haptic("light");
        if (body.action === "analyse") say(word("analysis_sent"));
        if (answer.next) await goTo(answer.next);
      } else {
        say(answer.message, true);
        haptic("error");
      }
    } catch (err) {
      page.busy = false;
      back();
      if (onPage) render();
      say(word("not_sent"), true);
      draw();
    } finally {
      page.busy = false;
      document.body.classList.remove("busy");
    }
  }

  // What a refused action's status means for the player.
  function refusal(status) {
    if (status === 429) return word("slow_down");
    if (status === 403 || status === 404) return word("no_access_title") + ". " + word("no_access");
    return word("not_taken");
  }

  // A rematch started: the page goes to the new contest (with the player's link to it when
  // they came by a personal link; Telegram's launch data opens any game of theirs).
  async function goTo(next) {
    page.game = String(next.game);
    const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
    const query = new URLSearchParams(location.search);
    if (next.link) {
      page.auth = "link " + next.link;
      hash.set("game", page.game);
      hash.set("link", next.link);
      query.delete("game");
    } else {
      query.set("game", page.game);
    }
    const search = query.toString() ? "?" + query : "";
    history.replaceState(null, "", location.pathname + search + "#" + hash);
    if (page.source) page.source.close();
    page.state = null;
    page.base = null;
    page.walk = null;
    page.selected = null;
    await resume();
  }

  function accept(state) {
    // States can arrive from the action's answer and from the stream: keep the newest.
    if (page.base && state.version < page.base.version) return;
    const changed = !page.base || state.version !== page.base.version;
    page.base = state;
    if (changed) page.walk = null;
    if (page.walk) return; // the same state again while the player walks the turn on the page
    const shown = page.state;
    page.state = state;
    if (changed || shown !== state || !(page.drag || page.choosing)) render();
  }

  // -- live updates -------------------------------------------------------------------------------

  // The server closes a stream when the game ends (an "end" event: nothing more will
  // come) or at its maximum age (a "renew" event: a new stream at once), and refuses one
  // while too many are open. The browser reconnects by itself after a plain close; a
  // refused stream is asked for again with a fresh token, after a wait that grows while
  // refusals go on.
  function listen() {
    const url = `/api/game/${page.game}/events?token=${encodeURIComponent(page.stream)}`;
    if (page.source) page.source.close();
    const source = new EventSource(url);
    page.source = source;
    document.body.dataset.listening = "yes";
    source.addEventListener("state", (evt) => {
      document.body.classList.remove("offline");
      page.retryDelay = 0;
      accept(JSON.parse(evt.data));
    });
    source.addEventListener("end", () => {
      source.close();
      document.body.dataset.listening = "ended"; // for a test to see
    });
    source.addEventListener("renew", async () => {
      // The stream's time is up: a new one, with a fresh token, without looking offline.
      source.close();
      if (!(await resume())) relisten();
    });
    source.addEventListener("error", () => {
      // The banner says it; the message line keeps what it said (a refusal stays readable).
      document.body.classList.add("offline");
      if (source.readyState === EventSource.CLOSED) relisten();
    });
  }

  // The state with a fresh stream token, and live updates again while the game goes on;
  // false when the server could not be asked.
  async function resume() {
    const resp = await patiently("").catch(() => null);
    if (resp && (resp.status === 403 || resp.status === 404)) {
      refuse(); // the link has expired meanwhile: retrying would never get through
      return true;
    }
    if (!resp || !resp.ok) return false;
    const state = await resp.json();
    page.stream = state.stream;
    document.body.classList.remove("offline");
    accept(state);
    window.addEventListener("resize", fitBoard); // turned, or Telegram's view expanded
    if (state.status === "challenge" || state.status === "active") listen();
    return true;
  }

  function relisten() {
    page.retryDelay = Math.min(60000, Math.max(1000, (page.retryDelay || 0) * 2));
    const wait = page.retryDelay * (0.5 + Math.random() / 2); // spread a crowd's retries
    setTimeout(async () => {
      if (await resume()) document.body.classList.remove("offline");
      else relisten();
    }, wait);
  }

  function isDark(hex) {
    const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex || "");
    if (!m) return false;
    const [r, g, b] = m.slice(1).map((v) => parseInt(v, 16));
    return 0.299 * r + 0.587 * g + 0.114 * b < 128;
  }

  // Telegram's colours: from its script when loaded, else from the launch parameters.
  function applyTelegramTheme(launch) {
    if (!launch.inTelegram) return;
    const tg = page.tg;
    const p = (tg && tg.themeParams && Object.keys(tg.themeParams).length ? tg.themeParams : launch.theme) || {};
    const root = document.documentElement.style;
    const map = { bg_color: "--bg", text_color: "--text", hint_color: "--hint", button_color: "--button", button_text_color: "--button-text", secondary_bg_color: "--bg2" };
    for (const [key, name] of Object.entries(map)) if (p[key]) root.setProperty(name, p[key]);
    page.dark = tg && tg.colorScheme ? tg.colorScheme === "dark" : isDark(p.bg_color);
    document.body.classList.remove("dark", "light");
    document.body.classList.add("telegram", page.dark ? "dark" : "light");
  }

  // Telegram tells the page when its user switches between light and dark.
  function followTelegramTheme(launch) {
    const tg = page.tg;
    if (!tg || !tg.onEvent) return;
    tg.onEvent("themeChanged", () => {
      applyTelegramTheme({ ...launch, theme: null });
      if (page.state) draw();
    });
  }

  // Telegram's script only inside Telegram (nobody else's visit is announced to it), and the
  // page goes on without it when it cannot load (offline, blocked): the launch data is in
  // the URL fragment either way.
  function loadTelegramScript() {
    let inTelegram = new URLSearchParams(location.hash.replace(/^#/, "")).has("tgWebAppData");
    try {
      // After a reload inside Telegram its script finds the launch data it kept here.
      inTelegram = inTelegram || Boolean(sessionStorage.getItem("__telegram__initParams"));
    } catch (err) {
      // storage refused (a private window): the fragment alone decides
    }
    if (!inTelegram || window.Telegram) return Promise.resolve();
    return new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = TELEGRAM_SCRIPT;
      script.addEventListener("load", resolve);
      script.addEventListener("error", resolve);
      setTimeout(resolve, 3000);
      document.head.appendChild(script);
    });
  }

  async function start() {
    await loadTelegramScript();
    const launch = launchParams();
    page.game = launch.game;
    page.auth = launch.auth;
    page.tg = launch.inTelegram ? launch.tg : null;
    page.telegram = launch.inTelegram;
    applyTelegramTheme(launch);
    followTelegramTheme(launch);
    if (page.tg) {
      page.tg.ready(); // Telegram hides its loading placeholder
      page.tg.expand(); // the whole height: the board and its controls fit without scrolling
    }
    // The language a link names (``lang=`` in its query or fragment), else the browser's.
    const named = new URLSearchParams(location.search).get("lang") || new URLSearchParams(location.hash.replace(/^#/, "")).get("lang");
    const guess = (named || navigator.language || "en").slice(0, 2).toLowerCase();
    const layout = fetch("/api/layout").then((r) => r.json());
    const texts = async (lang) => (await (await fetch("/api/texts?lang=" + lang)).json()).texts;
    page.texts = await texts(guess);
    page.layouts = await layout;
    useStyle(null);
    buildPage();
    say(word("loading"));
    if (!page.game || !page.auth) {
      refuse();
      return;
    }
    page.lang = guess;
    const resp = await patiently("").catch(() => null);
    if (!resp || !resp.ok) {
      // Refused or unknown: the link is at fault. Anything else: the server, for now.
      if (!resp || !(resp.status === 403 || resp.status === 404)) say(word("not_loaded"), true);
      else refuse();
      return;
    }
    const state = await resp.json();
    page.stream = state.stream;
    if (state.lang !== guess) {
      page.texts = await texts(state.lang);
      document.getElementById("resign").textContent = word("resign");
      document.getElementById("offline").textContent = word("connection_lost");
    }
    page.lang = state.lang;
    accept(state);
    if (state.status === "challenge" || state.status === "active") listen();
    document.body.classList.add("ready");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
