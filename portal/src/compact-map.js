// The compact seat map of a big session on the portal's seat page (issue 29): each numbered sector
// is the UI kit's CompactSeatMap (ui/seat-canvas.tsx), which the server rendered as an empty canvas
// beside the sector's compact seat list (<script type="application/json" id="seats-<sector>">).
// Hydrated here, then re-rendered whenever the live map, the cart or the zoom changes it. A seat is
// taken (held or sold by someone else), this cart's, or free. Loaded by main.js as a chunk of its
// own, only on a page that has such a map.

import { h, hydrate, render } from 'preact';
import { CompactSeatMap, decodeSector, fittedCell, seatBox } from '../../ui/seat-canvas';

/**
 * Starts the compact maps of `sections` (the `.sector.compact` elements). `mine` is the set of this
 * cart's seat ids; `onPick(seatId)` holds or releases a seat as a seat button's click does;
 * `seatNote(box, seat, message)` shows a lost race's message beside a seat; `zoom(button)` is the
 * sectors' zoom. Returns what main.js calls as things change.
 */
export function startCompactMaps(sections, { t, mine, onPick, seatNote, zoom }) {
  const maps = [];
  /** A seat by its id: its map and its index there. */
  const seats = new Map();
  let version = 0;
  const words = { row: t.row, seat: t.seat, seatFree: t.seatFree, seatTaken: t.seatTaken, seatMine: t.seatMine, keys: t.compactKeys };

  for (const section of sections) {
    const list = document.getElementById(`seats-${section.dataset.sector}`);
    const container = section.querySelector('.seatscroll');
    if (!list || !container) continue;
    const grid = decodeSector(JSON.parse(list.textContent || '{}'));
    const map = { section, container, grid, name: section.dataset.name || '', taken: Uint8Array.from(grid.free, (f) => (f ? 0 : 1)), drawn: false };
    grid.ids.forEach((id, i) => seats.set(id, { map, i }));
    maps.push(map);
  }

  function draw(cart) {
    if (cart) mine = cart;
    version++;
    for (const map of maps) {
      const { grid, taken } = map;
      const view = h(CompactSeatMap, {
        grid,
        name: map.name,
        zoomed: map.section.classList.contains('zoomed'),
        // A seat of this cart stays pressable whatever the live map says (as a pressed button does).
        state: (i) => (mine.has(grid.ids[i]) ? 'mine' : taken[i] ? 'taken' : 'free'),
        version,
        onPick: (seatId) => onPick(seatId),
        t: words,
      });
      if (map.drawn) render(view, map.container);
      else hydrate(view, map.container);
      map.drawn = true;
    }
  }

  const set = (seatId, status) => {
    const at = seats.get(seatId);
    if (at) at.map.taken[at.i] = status === 'available' ? 0 : 1;
    return at;
  };

  // Where a sector fitted to the width would give seats under 24 CSS px (a phone), it opens zoomed,
  // as the button map does (WCAG 2.2 target size); "zoom out" shows the whole sector.
  for (const map of maps) {
    const button = map.section.querySelector('button.zoom');
    if (button && fittedCell(map.container.clientWidth, map.grid.cols) < 24) zoom(button);
  }
  draw();
  // Drawn and taking clicks (bench:seat-page waits for this).
  for (const map of maps) map.section.dataset.ready = '';

  return {
    draw,
    /** A live map message (D62): a snapshot of the taken seats, or changes since the last one. */
    apply(body) {
      if (body.snapshot) {
        const taken = new Set(body.changes.map((c) => c.session_seat_id));
        for (const map of maps) map.grid.ids.forEach((id, i) => (map.taken[i] = taken.has(id) ? 1 : 0));
      } else for (const c of body.changes) set(c.session_seat_id, c.status);
      draw();
    },
    /** A seat another buyer won as this one tapped it: grey, with the message beside it. */
    lost(seatId, message) {
      const at = set(seatId, 'held');
      draw();
      const canvas = at && at.map.container.querySelector('canvas');
      if (canvas) seatNote(at.map.container, seatBox(at.map.grid, at.i, canvas), message);
    },
  };
}
