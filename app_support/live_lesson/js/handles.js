// The hand: the handles' drags (pointer moves heard on the window, so a pointer off the
// handle still drags it and a new mount of the host does not end the drag), their arrow
// keys, and the sliders' moves. Every move calls ``move(state, event time)``; the end of a
// drag, of a key press or of a slider move calls ``release(state)``.

import { snap } from "./format.js";

// The data's coordinate at a pointer's client position on an SVG drawn at ``scale``.
function coordinate(svg, client, scale, vertical) {
  const rect = svg.getBoundingClientRect();
  const size = Number(svg.getAttribute(vertical ? "height" : "width"));
  const px = ((vertical ? client.y - rect.top : client.x - rect.left) / (vertical ? rect.height : rect.width)) * size;
  if (vertical) return scale.lo + ((scale.bottom - px) / (scale.bottom - scale.top)) * (scale.hi - scale.lo);
  return scale.lo + ((px - scale.left) / (scale.right - scale.left)) * (scale.hi - scale.lo);
}

// The model's place for field (at or x0) from a pointer on ``svg``.
function placeAt(state, svg, e) {
  const range = state.m.place;
  const x = snap(coordinate(svg, { x: e.clientX }, state.scales.x, false), range);
  if (!state.scales.y) return x;
  return [x, snap(coordinate(svg, { y: e.clientY }, state.scales.y, true), range)];
}

export function bindHandle(state, handle, field, svg, move, release) {
  handle.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    handle.focus();
    state.dragging = field;
    state.dragSvg = svg;
    state.dom.box.classList.add("dragging");
  });
  handle.addEventListener("keydown", (e) => {
    const key = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowDown: [1, -1], ArrowUp: [1, 1] }[e.key];
    if (!key) return;
    e.preventDefault();
    state.keyHeld = true; // (a server run that arrives while the key is held waits)
    const step = state.m.place[2] * (e.shiftKey ? 10 : 1);
    const value = state.m[field];
    if (Array.isArray(value)) {
      const next = value.slice();
      next[key[0]] = snap(next[key[0]] + key[1] * step, state.m.place);
      state.m[field] = next;
    } else {
      state.m[field] = snap(value + key[1] * step, state.m.place);
    }
    state.keyMoved = true;
    move(state, e.timeStamp);
  });
  handle.addEventListener("keyup", (e) => {
    if (state.keyMoved && e.key.startsWith("Arrow")) {
      state.keyMoved = false;
      state.keyHeld = false;
      release(state);
    }
  });
}

// The window's pointer listeners, added once for the page: they act on the figure ``current()``
// returns (a figure built again for another page or dimension adds none).
let HEARD = null;
let BOUND = false;

export function bindWindow(current, move, release) {
  HEARD = { current, move, release };
  if (BOUND) return;
  BOUND = true;
  const dragged = () => {
    const state = HEARD.current();
    return state && state.dragSvg && (state.dragging === "at" || state.dragging === "x0") ? state : null;
  };
  window.addEventListener("pointermove", (e) => {
    const state = dragged();
    if (!state) return;
    state.m[state.dragging] = placeAt(state, state.dragSvg, e);
    HEARD.move(state, e.timeStamp);
  });
  const end = () => {
    const state = dragged();
    if (state) HEARD.release(state);
  };
  window.addEventListener("pointerup", end);
  window.addEventListener("pointercancel", end);
}
