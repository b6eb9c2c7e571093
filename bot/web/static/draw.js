// The Tavla web board's picture: an SVG drawn from the server's state, with the same geometry
// and colours as the bot's board pictures (served as /api/layout). A pure function of the
// state: it reads it and draws, and decides nothing (legal targets come from the server).
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  // A painter for one layout ``L`` and theme ``T`` (the colours of renderers/themes.py).
  function painter(L, T) {
    function rect(parent, r, fill, extra) {
      return el(
        "rect",
        { x: r[0], y: r[1], width: r[2] - r[0], height: r[3] - r[1], fill, ...(extra || {}) },
        parent,
      );
    }

    function checker(parent, cx, cy, color, label, extra) {
      const style = T[color];
      const r = L.checker / 2;
      const g = el("g", { class: "checker " + color, ...(extra || {}) }, parent);
      el("circle", { cx, cy, r: r - 1, fill: style.fill, stroke: style.edge, "stroke-width": 3 }, g);
      el("circle", { cx, cy, r: r * 0.72, fill: "none", stroke: style.rim, "stroke-width": 2 }, g);
      if (label) {
        const text = el("text", { x: cx, y: cy, class: "count", fill: style.text }, g);
        text.textContent = label;
      }
      return g;
    }

    function stackCentre(point, index) {
      const col = L.points[point].column;
      const r = L.checker / 2;
      const i = Math.min(index, L.max_stack - 1);
      const cx = (col[0] + col[2]) / 2;
      return L.points[point].top ? [cx, col[1] + r + i * L.checker] : [cx, col[3] - r - i * L.checker];
    }

    function barCentre(upper, index) {
      const r = L.checker / 2;
      const i = Math.min(index, L.max_bar - 1);
      const cx = (L.bar[0] + L.bar[2]) / 2;
      const off = L.gap / 2 + r + i * L.checker;
      return [cx, upper ? L.mid_y - off : L.mid_y + off];
    }

    function paint(svg, s, selected) {
      svg.textContent = "";
      if (!s.board) return;
      const b = s.board;
      rect(svg, L.board, T.frame);
      rect(svg, L.rail, T.frame_dark);
      rect(svg, L.left_field, T.field);
      rect(svg, L.right_field, T.field);
      rect(svg, L.bar, T.bar);
      for (const side of ["top", "bottom"]) rect(svg, L.trays[side], T.tray, { stroke: T.tray_edge, "stroke-width": 2 });
      const legalFrom = s.legal || {};
      const targets = selected !== null ? legalFrom[String(selected)] || [] : [];
      // Points: triangle, number, checkers, and a hit area for taps and drops.
      for (let p = 1; p <= 24; p++) {
        const P = L.points[p];
        const tri = P.triangle.map((xy) => xy.join(",")).join(" ");
        el("polygon", { points: tri, fill: p % 2 ? T.point_a : T.point_b }, svg);
        const num = el("text", { x: P.label[0], y: P.label[1], class: "number", fill: T.numbers }, svg);
        num.textContent = p;
      }
      // Last play: a ring where each moved checker now stands.
      const lastTo = new Set((b.last_play || []).filter((st) => st.to > 0).map((st) => st.to));
      for (let p = 1; p <= 24; p++) {
        const here = b.points[p];
        if (!here) continue;
        const shown = Math.min(here.count, L.max_stack);
        for (let i = 0; i < shown; i++) {
          const [cx, cy] = stackCentre(p, i);
          const label = i === shown - 1 && here.count > L.max_stack ? String(here.count) : "";
          const extra = { "data-color": here.color };
          if (i === shown - 1) extra["data-top"] = String(p);
          const node = checker(svg, cx, cy, here.color, label, extra);
          if (i === shown - 1 && lastTo.has(p) && b.last_play_color === here.color) {
            el("circle", { cx, cy, r: L.checker / 2 + 3, class: "ring", stroke: T.last_move }, node);
          }
          if (i === shown - 1 && selected === p) {
            el("circle", { cx, cy, r: L.checker / 2 + 4, class: "ring selected", stroke: T.highlight }, node);
          }
        }
      }
      // The bar: the viewer's checkers in the upper half, next to where they enter.
      for (const [color, upper] of [[b.bottom, true], [b.top, false]]) {
        const n = b.bar[color] || 0;
        for (let i = 0; i < Math.min(n, L.max_bar); i++) {
          const [cx, cy] = barCentre(upper, i);
          const label = i === Math.min(n, L.max_bar) - 1 && n > L.max_bar ? String(n) : "";
          const extra = { "data-color": color };
          if (upper && i === Math.min(n, L.max_bar) - 1) extra["data-top"] = "25";
          const node = checker(svg, cx, cy, color, label, extra);
          if (upper && selected === 25 && i === Math.min(n, L.max_bar) - 1) {
            el("circle", { cx, cy, r: L.checker / 2 + 4, class: "ring selected", stroke: T.highlight }, node);
          }
        }
      }
      // Borne-off checkers, edge on, in the trays (the viewer's at the bottom).
      for (const [color, side] of [[b.bottom, "bottom"], [b.top, "top"]]) {
        const tray = L.trays[side];
        const pitch = (tray[3] - tray[1] - 44) / 15;
        const n = b.off[color] || 0;
        for (let i = 0; i < n; i++) {
          const y = side === "top" ? tray[1] + 7 + i * pitch : tray[3] - 7 - (i + 1) * pitch;
          rect(svg, [tray[0] + 11, y, tray[2] - 11, y + pitch * 0.82], T[color].fill, { stroke: T[color].edge, "stroke-width": 1 });
        }
        if (n) {
          const label = el("text", { x: (tray[0] + tray[2]) / 2, y: side === "top" ? tray[3] - 17 : tray[1] + 17, class: "count", fill: T.numbers }, svg);
          label.textContent = n;
        }
      }
      // Legal destinations of the selected checker.
      for (const dest of targets) {
        if (dest === 0) {
          rect(svg, L.trays.bottom, "none", { class: "target", stroke: T.highlight, "stroke-width": 8, "data-target": "0" });
          continue;
        }
        const here = b.points[dest];
        const [cx, cy] = stackCentre(dest, here ? Math.min(here.count, L.max_stack - 1) : 0);
        el("circle", { cx, cy, r: L.checker * 0.3, class: "target", fill: T.highlight, "data-target": String(dest) }, svg);
      }
      // The cube on the rail, on its owner's side.
      if (b.cube) {
        const cx = (L.rail[0] + L.rail[2]) / 2;
        const half = L.cube / 2;
        let cy = L.mid_y;
        if (b.cube_owner === b.top) cy = L.rail[1] + half + 10;
        if (b.cube_owner === b.bottom) cy = L.rail[3] - half - 10;
        rect(svg, [cx - half, cy - half, cx + half, cy + half], T.cube_face, { rx: 8, stroke: T.frame_dark, "stroke-width": 2 });
        const value = el("text", { x: cx, y: cy, class: "cube", fill: T.cube_text }, svg);
        value.textContent = b.cube_owner ? b.cube : 64;
      }
      // Dice on the roller's half: the viewer's on their home half, the opponent's opposite.
      if (b.dice.length) {
        const half = b.dice_color === b.bottom ? L.home_field : L.outer_field;
        const step = L.die + 12;
        const start = (half[0] + half[2]) / 2 - (step * (b.dice.length - 1)) / 2;
        b.dice.forEach((d, i) => {
          const cx = start + i * step;
          const used = b.dice_used[i];
          const style = T[b.dice_color];
          const g = el("g", { class: "die" + (used ? " used" : ""), "data-die": d }, svg);
          rect(g, [cx - L.die / 2, L.mid_y - L.die / 2, cx + L.die / 2, L.mid_y + L.die / 2], style.fill, { rx: 8, stroke: style.edge, "stroke-width": 2 });
          for (const [px, py] of pips(d)) el("circle", { cx: cx + px * L.die * 0.27, cy: L.mid_y + py * L.die * 0.27, r: L.die * 0.09, fill: style.pip }, g);
        });
      }
      // Hit areas last, on top: whole columns and the viewer's tray.
      for (let p = 1; p <= 24; p++) rect(svg, L.points[p].column, "transparent", { class: "hit", "data-point": String(p) });
      rect(svg, L.bar, "transparent", { class: "hit", "data-point": "25" });
      rect(svg, L.trays.bottom, "transparent", { class: "hit", "data-point": "0" });
    }

    function pips(d) {
      const c = [[0, 0]];
      const two = [[-1, -1], [1, 1]];
      const four = [[-1, -1], [1, -1], [-1, 1], [1, 1]];
      return {
        1: c,
        2: two,
        3: [...two, [0, 0]],
        4: four,
        5: [...four, [0, 0]],
        6: [...four, [-1, 0], [1, 0]],
      }[d];
    }

    return { paint, checker };
  }

  window.TavlaDraw = { el, painter };
})();
