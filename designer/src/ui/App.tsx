import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { savePlan, type Boot, type Failure } from '../api.js';
import { makeBlock, relabelRows, ROW_SPACING, SEAT_SPACING, type Direction, type Parity } from '../plan/geometry.js';
import { commit, redo, start, undo, type History } from '../plan/history.js';
import * as ops from '../plan/ops.js';
import { indexSeats, type PlacedSeat, type Rect, type SeatIndex } from '../plan/spatial.js';
import { FLAGS, type Flag, type Plan, type Point } from '../plan/types.js';
import { describePath, planProblems } from '../plan/validate.js';
import { Canvas, UNCATEGORISED, type Mode, type View } from './Canvas.js';

// The designer: a toolbar, the canvas and the panels of commands. Every edit makes a new plan
// state in the history (undo, redo); saving sends the present state as the venue's next version.

const FLAG_LABELS: Record<Flag, string> = { wheelchair: 'Wheelchair', companion: 'Companion', restricted_view: 'Restricted view' };
const PALETTE = ['#3366cc', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d'];

let ids = 0;
const useId = () => useMemo(() => `d${++ids}`, []);

function Field(props: { label: string; children: (id: string) => ComponentChildren; hint?: string }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>
        {props.label}
        {props.hint && <span class="hint"> {props.hint}</span>}
      </label>
      {props.children(id)}
    </div>
  );
}

function NumberField(props: { label: string; value: number; onChange(v: number): void; min?: number; max?: number; step?: number; hint?: string }) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id) => (
        <input
          id={id}
          type="number"
          inputMode="numeric"
          value={props.value}
          min={props.min}
          max={props.max}
          step={props.step ?? 1}
          onInput={(e) => {
            const v = Number((e.currentTarget as HTMLInputElement).value);
            if (Number.isFinite(v)) props.onChange(v);
          }}
        />
      )}
    </Field>
  );
}

function TextField(props: { label: string; value: string; onChange(v: string): void; hint?: string }) {
  return <Field label={props.label} hint={props.hint}>{(id) => <input id={id} value={props.value} onInput={(e) => props.onChange((e.currentTarget as HTMLInputElement).value)} />}</Field>;
}

function SelectField<T extends string>(props: { label: string; value: T; options: [T, string][]; onChange(v: T): void }) {
  return (
    <Field label={props.label}>
      {(id) => (
        <select id={id} value={props.value} onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value as T)}>
          {props.options.map(([v, text]) => (
            <option key={v} value={v}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function Panel(props: { title: string; children: ComponentChildren; id: string; open?: boolean }) {
  return (
    <section class="panel" aria-labelledby={`${props.id}-h`}>
      <h2 id={`${props.id}-h`}>{props.title}</h2>
      {props.children}
    </section>
  );
}

const DIRECTIONS: [Direction, string][] = [
  ['ltr', 'Left to right'],
  ['rtl', 'Right to left'],
];
const PARITIES: [Parity, string][] = [
  ['all', '1, 2, 3…'],
  ['odd', 'Odd: 1, 3, 5…'],
  ['even', 'Even: 2, 4, 6…'],
];

/** Keys of the selection that still name a seat of the plan (after an undo, a delete). */
function liveKeys(plan: Plan, keys: ReadonlySet<ops.SeatKey>): Set<ops.SeatKey> {
  const out = new Set<ops.SeatKey>();
  for (const key of keys) {
    const [s, r, i] = ops.parseKey(key);
    if (plan.sectors[s]?.rows?.[r]?.seats[i]) out.add(key);
  }
  return out;
}

function fitView(plan: Plan, width: number, height: number): View {
  const b = ops.bounds(plan) ?? { minX: 0, minY: 0, maxX: plan.size?.width ?? 1000, maxY: plan.size?.height ?? 700 };
  const w = Math.max(200, b.maxX - b.minX + 80);
  const h = Math.max(150, b.maxY - b.minY + 80);
  const scale = Math.min(8, Math.max(0.02, Math.min(width / w, height / h)));
  return { scale, x: b.minX - 40 - (width / scale - w) / 2, y: b.minY - 40 - (height / scale - h) / 2 };
}

export function App({ boot, initial, version }: { boot: Boot; initial: Plan; version: number | null }) {
  const [hist, setHist] = useState<History<Plan>>(() => start(initial));
  const plan = hist.present;
  const [selection, setSelectionState] = useState<ReadonlySet<ops.SeatKey>>(new Set());
  const [chosenSector, setChosenSector] = useState<number | null>(null);
  const [mode, setMode] = useState<Mode>('select');
  const [view, setView] = useState<View>(() => fitView(initial, Math.min(window.innerWidth, 900), 480));
  const [status, setStatus] = useState('');
  const [failure, setFailure] = useState<Failure | null>(null);
  const [saved, setSaved] = useState<{ version: number | null; plan: Plan }>({ version, plan: initial });
  const [saving, setSaving] = useState(false);
  const canvasWrap = useRef<HTMLDivElement>(null);

  // The seat index follows the plan; sectors that did not change keep their tiles' seats.
  const indexRef = useRef<{ plan: Plan; perSector: PlacedSeat[][]; tiles: SeatIndex['tiles'] } | undefined>(undefined);
  const index = useMemo(() => {
    const built = indexSeats(plan, indexRef.current);
    indexRef.current = { plan, perSector: built.perSector, tiles: built.index.tiles };
    return built.index;
  }, [plan]);

  const selected = useMemo(() => liveKeys(plan, selection), [plan, selection]);
  const colors = useMemo(() => new Map((plan.categories ?? []).map((c) => [c.name, c.color ?? UNCATEGORISED])), [plan.categories]);
  const categoryNames = (plan.categories ?? []).map((c) => c.name);

  const say = (text: string) => setStatus(text);
  const edit = useCallback((change: (p: Plan) => Plan, message?: string) => {
    setHist((h) => commit(h, change(h.present)));
    if (message) say(message);
  }, []);
  const setSelection = (keys: Iterable<ops.SeatKey>) => setSelectionState(new Set(keys));

  const sectorsOfSelection = useMemo(() => new Set([...selected].map((k) => ops.parseKey(k)[0])), [selected]);
  const activeSector = sectorsOfSelection.size === 1 ? [...sectorsOfSelection][0]! : chosenSector !== null && plan.sectors[chosenSector] ? chosenSector : null;
  const sector = activeSector !== null ? plan.sectors[activeSector] : undefined;

  const doUndo = () => {
    if (!hist.past.length) return say('Nothing to undo.');
    setHist(undo);
    say('Undone.');
  };
  const doRedo = () => {
    if (!hist.future.length) return say('Nothing to redo.');
    setHist(redo);
    say('Redone.');
  };
  const deleteSelection = () => {
    if (!selected.size) return say('Select seats first.');
    const n = selected.size;
    edit((p) => ops.deleteSeats(p, selected), `${n} seat${n === 1 ? '' : 's'} deleted.`);
    setSelection([]);
  };
  const moveSelection = (dx: number, dy: number) => {
    if (!selected.size) return;
    edit((p) => ops.moveSeats(p, selected, dx, dy));
  };

  // Keyboard: undo and redo anywhere but in a text field; arrows and Delete on the canvas.
  const keys = useRef({ doUndo, doRedo, deleteSelection, moveSelection, selected });
  keys.current = { doUndo, doRedo, deleteSelection, moveSelection, selected };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      const typing = target.closest('input, select, textarea, [contenteditable]') !== null;
      const k = keys.current;
      const mod = event.ctrlKey || event.metaKey;
      if (mod && !typing && (event.key === 'z' || event.key === 'Z')) {
        event.preventDefault();
        if (event.shiftKey) k.doRedo();
        else k.doUndo();
        return;
      }
      if (mod && !typing && (event.key === 'y' || event.key === 'Y')) {
        event.preventDefault();
        k.doRedo();
        return;
      }
      const onCanvas = target.classList.contains('canvas') || target === document.body;
      if (!onCanvas) return;
      if (event.key === 'Delete' || event.key === 'Backspace') {
        event.preventDefault();
        k.deleteSelection();
        return;
      }
      if (event.key === 'Escape') {
        setSelectionState(new Set());
        return;
      }
      const step = event.shiftKey ? 30 : 5;
      const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
      const m = moves[event.key];
      if (m && k.selected.size) {
        event.preventDefault();
        k.moveSelection(m[0], m[1]);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const onSelect = (keysIn: ops.SeatKey[], how: 'replace' | 'add' | 'toggle') => {
    if (how === 'replace') setSelection(keysIn);
    else {
      const next = new Set(selected);
      for (const k of keysIn) {
        if (how === 'toggle' && next.has(k)) next.delete(k);
        else next.add(k);
      }
      setSelection(next);
    }
    if (keysIn.length) setChosenSector(ops.parseKey(keysIn[0]!)[0]);
  };

  // ---- new sectors
  const [block, setBlock] = useState({ name: '', rows: 3, seats: 10, firstRow: 'A', direction: 'ltr' as Direction, parity: 'all' as Parity, category: '' });
  const [area, setArea] = useState({ name: '', capacity: 200 });
  const blockCategory = block.category || categoryNames[0] || '';
  /** A free spot under what is drawn. */
  const freeSpot = (): Point => {
    const b = ops.bounds(plan);
    return b ? { x: Math.round(Math.max(40, b.minX)), y: Math.round(b.maxY + 60) } : { x: 80, y: 140 };
  };
  const addBlock = (origin: Point, rows = block.rows, seats = block.seats) => {
    if (rows < 1 || seats < 1 || rows * seats > 20_000) return say('A block has 1 to 20,000 seats.');
    const name = block.name.trim() || ops.freeName(plan);
    if (plan.sectors.some((s) => s.name === name)) return say(`A sector is already called "${name}".`);
    const made = makeBlock({ name, rows, seatsPerRow: seats, origin, firstRow: block.firstRow || 'A', direction: block.direction, parity: block.parity, category: blockCategory || undefined });
    const s = plan.sectors.length;
    edit((p) => ops.addSector(p, made), `Sector "${name}" added: ${rows} rows of ${seats} seats.`);
    setSelection(made.rows!.flatMap((row, r) => row.seats.map((_, i) => ops.seatKey(s, r, i))));
    setChosenSector(s);
    setBlock({ ...block, name: '' });
    const b = ops.bounds({ ...plan, sectors: [...plan.sectors, made] });
    if (b && canvasWrap.current) {
      // Bring the new block on screen when it is not.
      const w = canvasWrap.current.clientWidth / view.scale;
      const h = canvasWrap.current.clientHeight / view.scale;
      if (origin.x < view.x || origin.y < view.y || origin.x > view.x + w || origin.y > view.y + h) setView(fitView({ ...plan, sectors: [...plan.sectors, made] }, canvasWrap.current.clientWidth, canvasWrap.current.clientHeight));
    }
  };
  const addArea = () => {
    const name = area.name.trim() || ops.freeName(plan);
    if (plan.sectors.some((s) => s.name === name)) return say(`A sector is already called "${name}".`);
    if (!Number.isInteger(area.capacity) || area.capacity < 1) return say('The capacity is a whole number of places, 1 or more.');
    const s = plan.sectors.length;
    edit((p) => ops.addSector(p, ops.unnumberedSector(name, area.capacity, freeSpot())), `Unnumbered sector "${name}" added with ${area.capacity} places.`);
    setChosenSector(s);
    setSelection([]);
    setArea({ ...area, name: '' });
  };

  const onRect = (which: 'block' | 'stage', rect: Rect) => {
    if (which === 'stage') {
      if (rect.width < 10 || rect.height < 10) return say('Drag a larger rectangle for the stage.');
      edit((p) => ops.setStage(p, rect), 'Stage placed.');
      setStageForm({ x: rect.x, y: rect.y, width: rect.width, height: rect.height });
    } else {
      const rows = Math.max(1, Math.round(rect.height / ROW_SPACING) + 1);
      const seats = Math.max(1, Math.round(rect.width / SEAT_SPACING) + 1);
      addBlock({ x: rect.x, y: rect.y }, rows, seats);
    }
    setMode('select');
  };

  // ---- the active block
  const [bend, setBend] = useState(40);
  const [slant, setSlant] = useState(15);
  const [numbering, setNumbering] = useState({ direction: 'ltr' as Direction, parity: 'all' as Parity, start: 1, firstRow: 'A' });
  const [sectorName, setSectorName] = useState('');
  const [capacity, setCapacity] = useState(0);
  useEffect(() => {
    setSectorName(sector?.name ?? '');
    setCapacity(sector?.capacity ?? 0);
  }, [activeSector, sector?.name, sector?.capacity]);

  // Selecting one seat from the keyboard: its row and number in the active sector.
  const [finder, setFinder] = useState({ row: '', seat: '' });
  const findSeat = () => {
    if (activeSector === null) return;
    const r = sector?.rows?.findIndex((row) => row.label === finder.row.trim()) ?? -1;
    const i = r >= 0 ? sector!.rows![r]!.seats.findIndex((seat) => seat.number === finder.seat.trim()) : -1;
    if (i < 0) return say(`No seat ${finder.seat.trim()} in row ${finder.row.trim()} of "${sector?.name}".`);
    setSelection([ops.seatKey(activeSector, r, i)]);
    say(`Seat ${finder.seat.trim()} of row ${finder.row.trim()} selected.`);
  };

  // ---- the selected seats
  const selectedSeats = useMemo(() => [...selected].map((k) => {
    const [s, r, i] = ops.parseKey(k);
    return plan.sectors[s]!.rows![r]!.seats[i]!;
  }), [plan, selected]);
  const [seatCategory, setSeatCategory] = useState('');
  const [priority, setPriority] = useState(0);
  const flagState = (flag: Flag) => (selectedSeats.length > 0 && selectedSeats.every((s) => s[flag]) ? 'true' : selectedSeats.some((s) => s[flag]) ? 'mixed' : 'false');
  const toggleFlag = (flag: Flag) => {
    if (!selected.size) return say('Select seats first.');
    const on = flagState(flag) !== 'true';
    edit((p) => ops.setFlag(p, selected, flag, on), `${FLAG_LABELS[flag]} ${on ? 'set on' : 'cleared from'} ${selected.size} seat${selected.size === 1 ? '' : 's'}.`);
  };

  // ---- categories
  const [newCategory, setNewCategory] = useState({ name: '', color: PALETTE[0]! });

  // ---- stage and focal point
  const stage = ops.stageOf(plan);
  const [stageForm, setStageForm] = useState({ x: stage?.position?.x ?? 300, y: stage?.position?.y ?? 20, width: stage?.width ?? 400, height: stage?.height ?? 60 });
  const [focalForm, setFocalForm] = useState({ x: plan.focal_point?.x ?? 500, y: plan.focal_point?.y ?? 50 });

  // ---- saving
  const problems = useMemo(() => planProblems(plan), [plan]);
  const dirty = plan !== saved.plan;
  const save = async () => {
    setFailure(null);
    const toSave = ops.fitSize(plan);
    const local = planProblems(toSave);
    if (local) {
      setFailure({ status: 422, message: 'The seat map has problems to fix before saving', errors: local });
      return;
    }
    setSaving(true);
    say('Saving…');
    try {
      const out = await savePlan(boot, toSave);
      if (out.ok) {
        if (toSave !== plan) setHist((h) => commit(h, toSave));
        setSaved({ version: out.data.version, plan: toSave });
        say(`Saved as version ${out.data.version}: ${out.data.seats} seats, ${out.data.capacity} places in all.`);
      } else {
        setFailure(out.failure);
        say('Not saved.');
      }
    } catch {
      setFailure({ status: 0, message: 'The server could not be reached: nothing was saved. Try again.' });
      say('Not saved.');
    } finally {
      setSaving(false);
    }
  };
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (!dirty) return;
      event.preventDefault();
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const zoom = (factor: number) => {
    const el = canvasWrap.current;
    const w = el?.clientWidth ?? 800;
    const h = el?.clientHeight ?? 500;
    const scale = Math.min(8, Math.max(0.02, view.scale * factor));
    setView({ scale, x: view.x + w / 2 / view.scale - w / 2 / scale, y: view.y + h / 2 / view.scale - h / 2 / scale });
  };
  const fit = () => {
    const el = canvasWrap.current;
    setView(fitView(plan, el?.clientWidth ?? 800, el?.clientHeight ?? 500));
  };
  useEffect(() => {
    // The first fit once the canvas has its real size.
    if (canvasWrap.current) setView(fitView(initial, canvasWrap.current.clientWidth, canvasWrap.current.clientHeight));
  }, []);

  const seats = index.size;
  const places = plan.sectors.reduce((n, s) => n + (s.numbered ? 0 : (s.capacity ?? 0)), 0);

  return (
    <div class="designer">
      <div class="toolbar" role="toolbar" aria-label="Designer">
        <button type="button" onClick={doUndo} disabled={!hist.past.length} aria-keyshortcuts="Control+Z" title="Undo (Ctrl+Z)">
          Undo
        </button>
        <button type="button" onClick={doRedo} disabled={!hist.future.length} aria-keyshortcuts="Control+Shift+Z" title="Redo (Ctrl+Shift+Z)">
          Redo
        </button>
        <span class="group" role="group" aria-label="Pointer">
          {(
            [
              ['select', 'Select'],
              ['pan', 'Pan'],
            ] as [Mode, string][]
          ).map(([m, label]) => (
            <button key={m} type="button" class="secondary" aria-pressed={mode === m} onClick={() => setMode(m)}>
              {label}
            </button>
          ))}
        </span>
        <span class="group" role="group" aria-label="Zoom">
          <button type="button" class="secondary" onClick={() => zoom(1.4)} aria-label="Zoom in">
            +
          </button>
          <button type="button" class="secondary" onClick={() => zoom(1 / 1.4)} aria-label="Zoom out">
            −
          </button>
          <button type="button" class="secondary" onClick={fit}>
            Fit
          </button>
        </span>
        <button type="button" class="save" onClick={() => void save()} disabled={saving}>
          {saving ? 'Saving…' : 'Save as new version'}
        </button>
      </div>
      <p class="summary" id="designer-summary">
        <span data-testid="seat-count">{seats}</span> seats{places ? `, ${places} unnumbered places` : ''} in {plan.sectors.length} sector{plan.sectors.length === 1 ? '' : 's'}
        {' · '}
        {saved.version ? `version ${saved.version}` : 'not saved yet'}
        {dirty ? ' · unsaved changes' : ''}
        {selected.size ? ` · ${selected.size} selected` : ''}
      </p>
      <p class="status" role="status" aria-live="polite" id="designer-status">
        {status}
      </p>
      {failure && (
        <div class="error" role="alert" id="designer-error">
          <p>{failure.message}</p>
          {failure.errors && (
            <ul>
              {Object.entries(failure.errors)
                .slice(0, 20)
                .map(([path, texts]) => (
                  <li key={path}>
                    <strong>{describePath(plan, path)}</strong>: {texts.join('; ')}
                  </li>
                ))}
            </ul>
          )}
          {failure.data?.seats && (
            <ul>
              {failure.data.seats.slice(0, 20).map((s) => (
                <li key={`${s.session_id}-${s.sector}-${s.row}-${s.number}`}>
                  Session {s.session_id}: {s.sector}, row {s.row}, seat {s.number} is {s.status}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div class="workspace">
        <div class="canvas-wrap" ref={canvasWrap}>
          <Canvas
            plan={plan}
            index={index}
            selection={selected}
            colors={colors}
            view={view}
            mode={mode}
            onView={setView}
            onSelect={onSelect}
            onMoveSelection={(dx, dy) => edit((p) => ops.moveSeats(p, selected, dx, dy), `Moved ${selected.size} seat${selected.size === 1 ? '' : 's'}.`)}
            onRect={onRect}
            onFocal={(p) => {
              edit((pl) => ops.setFocalPoint(pl, p), `Focal point at ${p.x}, ${p.y}.`);
              setFocalForm(p);
              setMode('select');
            }}
            label={`Seat map of ${boot.venueName}. Click or drag to select seats, shift adds; arrows move the selection, Delete removes it.`}
          />
          {mode !== 'select' && mode !== 'pan' && (
            <p class="mode-hint" role="status">
              {mode === 'block' ? 'Drag a rectangle on the canvas: it fills with rows and seats.' : mode === 'stage' ? 'Drag a rectangle for the stage.' : 'Click where the stage is seen from best.'}{' '}
              <button type="button" class="secondary" onClick={() => setMode('select')}>
                Cancel
              </button>
            </p>
          )}
        </div>
        <div class="panels">
          <Panel id="sel" title={selected.size ? `Selected seats (${selected.size})` : 'Selected seats'}>
            {!selected.size ? (
              <p class="hint">Click a seat, shift-click to add more, or drag a box around them. Or select a whole sector below.</p>
            ) : (
              <>
                <div class="row">
                  <SelectField label="Category" value={seatCategory || categoryNames[0] || ''} options={[...categoryNames.map((c) => [c, c] as [string, string]), ['', 'No category']]} onChange={setSeatCategory} />
                  <button
                    type="button"
                    onClick={() => {
                      const c = seatCategory || categoryNames[0] || '';
                      edit((p) => ops.setCategory(p, selected, c || null), `Category ${c || 'removed'} on ${selected.size} seats.`);
                    }}
                  >
                    Set category
                  </button>
                </div>
                <div class="flags" role="group" aria-label="Flags">
                  {FLAGS.map((flag) => (
                    <button key={flag} type="button" class="secondary" aria-pressed={flagState(flag)} onClick={() => toggleFlag(flag)}>
                      {FLAG_LABELS[flag]}
                    </button>
                  ))}
                </div>
                <div class="row">
                  <NumberField label="Row priority" hint="higher first in best available" value={priority} min={-1000} max={1000} onChange={setPriority} />
                  <button type="button" onClick={() => edit((p) => ops.setRowPriority(p, selected, Math.round(priority)), `Priority ${Math.round(priority)} on ${ops.rowsOf(selected).length} rows.`)}>
                    Set row priority
                  </button>
                </div>
                <div class="row">
                  <SelectField label="Number" value={numbering.direction} options={DIRECTIONS} onChange={(direction) => setNumbering({ ...numbering, direction })} />
                  <SelectField label="Numbers" value={numbering.parity} options={PARITIES} onChange={(parity) => setNumbering({ ...numbering, parity })} />
                  <NumberField label="First number" value={numbering.start} min={1} onChange={(start) => setNumbering({ ...numbering, start })} />
                  <button type="button" onClick={() => edit((p) => ops.renumber(p, selected, numbering), `Renumbered ${ops.rowsOf(selected).length} rows.`)}>
                    Renumber rows
                  </button>
                </div>
                <div class="arrows" role="group" aria-label="Move the selection">
                  <button type="button" class="secondary" aria-label="Move left" onClick={() => moveSelection(-5, 0)}>←</button>
                  <button type="button" class="secondary" aria-label="Move up" onClick={() => moveSelection(0, -5)}>↑</button>
                  <button type="button" class="secondary" aria-label="Move down" onClick={() => moveSelection(0, 5)}>↓</button>
                  <button type="button" class="secondary" aria-label="Move right" onClick={() => moveSelection(5, 0)}>→</button>
                  <button type="button" class="danger" onClick={deleteSelection}>
                    Delete seats
                  </button>
                </div>
              </>
            )}
          </Panel>

          <Panel id="block" title={sector ? `Sector "${sector.name}"` : 'Sector'}>
            {!sector ? (
              <p class="hint">Select seats of a sector, or a sector in the list, to curve, slant, rename or number it.</p>
            ) : (
              <>
                <div class="row">
                  <TextField label="Name" value={sectorName} onChange={setSectorName} />
                  <button
                    type="button"
                    onClick={() => {
                      const name = sectorName.trim();
                      if (!name) return say('A sector needs a name.');
                      if (plan.sectors.some((s, i) => s.name === name && i !== activeSector)) return say(`A sector is already called "${name}".`);
                      edit((p) => ops.renameSector(p, activeSector!, name), `Sector renamed "${name}".`);
                    }}
                  >
                    Rename
                  </button>
                </div>
                {sector.numbered ? (
                  <>
                    <div class="row">
                      <NumberField label="Curve by" hint="units at the ends; negative bends the other way" value={bend} step={5} onChange={setBend} />
                      <button type="button" onClick={() => edit((p) => ops.curve(p, activeSector!, bend), `Sector curved by ${bend}.`)}>
                        Curve
                      </button>
                    </div>
                    <div class="row">
                      <NumberField label="Skew by" hint="units per row; negative slants left" value={slant} step={5} onChange={setSlant} />
                      <button type="button" onClick={() => edit((p) => ops.skew(p, activeSector!, slant), `Sector skewed by ${slant} per row.`)}>
                        Skew
                      </button>
                    </div>
                    <div class="row">
                      <TextField label="Row" value={finder.row} onChange={(row) => setFinder({ ...finder, row })} />
                      <TextField label="Seat" value={finder.seat} onChange={(seat) => setFinder({ ...finder, seat })} />
                      <button type="button" class="secondary" onClick={findSeat}>
                        Select seat
                      </button>
                    </div>
                    <div class="row">
                      <TextField label="First row" value={numbering.firstRow} onChange={(firstRow) => setNumbering({ ...numbering, firstRow })} />
                      <button type="button" onClick={() => edit((p) => ops.updateSector(p, activeSector!, (s) => relabelRows(s, numbering.firstRow || 'A')), 'Rows labelled again.')}>
                        Label rows
                      </button>
                    </div>
                  </>
                ) : (
                  <div class="row">
                    <NumberField label="Capacity" value={capacity} min={1} onChange={setCapacity} />
                    <button type="button" onClick={() => (Number.isInteger(capacity) && capacity >= 1 ? edit((p) => ops.setCapacity(p, activeSector!, capacity), `Capacity ${capacity}.`) : say('The capacity is a whole number, 1 or more.'))}>
                      Set capacity
                    </button>
                  </div>
                )}
                <div class="arrows" role="group" aria-label="Move the sector">
                  <button type="button" class="secondary" aria-label="Move sector left" onClick={() => edit((p) => ops.moveSector(p, activeSector!, -10, 0))}>←</button>
                  <button type="button" class="secondary" aria-label="Move sector up" onClick={() => edit((p) => ops.moveSector(p, activeSector!, 0, -10))}>↑</button>
                  <button type="button" class="secondary" aria-label="Move sector down" onClick={() => edit((p) => ops.moveSector(p, activeSector!, 0, 10))}>↓</button>
                  <button type="button" class="secondary" aria-label="Move sector right" onClick={() => edit((p) => ops.moveSector(p, activeSector!, 10, 0))}>→</button>
                  <button
                    type="button"
                    class="danger"
                    onClick={() => {
                      const name = sector.name;
                      edit((p) => ops.removeSector(p, activeSector!), `Sector "${name}" deleted.`);
                      setSelection([]);
                      setChosenSector(null);
                    }}
                  >
                    Delete sector
                  </button>
                </div>
              </>
            )}
          </Panel>

          <Panel id="sectors" title="Sectors">
            {plan.sectors.length === 0 ? (
              <p class="hint">No sectors yet: add one below.</p>
            ) : (
              <ul class="sector-list">
                {plan.sectors.map((s, i) => (
                  <li key={`${i}-${s.name}`}>
                    <button
                      type="button"
                      class="secondary"
                      aria-pressed={activeSector === i}
                      onClick={() => {
                        setChosenSector(i);
                        setSelection(ops.sectorKeys(plan, i));
                      }}
                    >
                      {s.name}
                    </button>{' '}
                    <span class="hint">{s.numbered ? `${(s.rows ?? []).reduce((n, r) => n + r.seats.length, 0)} seats in ${(s.rows ?? []).length} rows` : `unnumbered, ${s.capacity ?? 0} places`}</span>
                  </li>
                ))}
              </ul>
            )}
          </Panel>

          <Panel id="add" title="Add a numbered sector">
            <div class="grid">
              <TextField label="Sector name" value={block.name} hint={`empty: ${ops.freeName(plan)}`} onChange={(name) => setBlock({ ...block, name })} />
              <NumberField label="Rows" value={block.rows} min={1} max={200} onChange={(rows) => setBlock({ ...block, rows })} />
              <NumberField label="Seats per row" value={block.seats} min={1} max={500} onChange={(seats) => setBlock({ ...block, seats })} />
              <TextField label="First row label" value={block.firstRow} onChange={(firstRow) => setBlock({ ...block, firstRow })} />
              <SelectField label="Seat numbers run" value={block.direction} options={DIRECTIONS} onChange={(direction) => setBlock({ ...block, direction })} />
              <SelectField label="Seat numbers" value={block.parity} options={PARITIES} onChange={(parity) => setBlock({ ...block, parity })} />
              <SelectField label="Seat category" value={blockCategory} options={[...categoryNames.map((c) => [c, c] as [string, string]), ['', 'No category']]} onChange={(category) => setBlock({ ...block, category })} />
            </div>
            <div class="actions">
              <button type="button" onClick={() => addBlock(freeSpot())}>
                Add sector
              </button>
              <button type="button" class="secondary" aria-pressed={mode === 'block'} onClick={() => setMode(mode === 'block' ? 'select' : 'block')}>
                Draw it on the canvas
              </button>
            </div>
          </Panel>

          <Panel id="area" title="Add an unnumbered sector">
            <div class="grid">
              <TextField label="Unnumbered sector name" value={area.name} hint="standing, lawn…" onChange={(name) => setArea({ ...area, name })} />
              <NumberField label="Capacity" value={area.capacity} min={1} onChange={(capacity) => setArea({ ...area, capacity })} />
            </div>
            <div class="actions">
              <button type="button" onClick={addArea}>
                Add unnumbered sector
              </button>
            </div>
          </Panel>

          <Panel id="cats" title="Categories">
            <ul class="categories">
              {(plan.categories ?? []).map((c) => (
                <li key={c.name}>
                  <CategoryRow
                    name={c.name}
                    color={c.color ?? UNCATEGORISED}
                    onChange={(next) => {
                      if (next.name !== c.name && categoryNames.includes(next.name)) return say(`A category is already called "${next.name}".`);
                      if (!next.name) return say('A category needs a name.');
                      edit((p) => ops.updateCategory(p, c.name, next), `Category "${next.name}" saved.`);
                    }}
                    onRemove={() => edit((p) => ops.removeCategory(p, c.name), `Category "${c.name}" removed; its seats have none.`)}
                  />
                </li>
              ))}
            </ul>
            <div class="row">
              <TextField label="New category" value={newCategory.name} onChange={(name) => setNewCategory({ ...newCategory, name })} />
              <Field label="Colour">{(id) => <input id={id} type="color" value={newCategory.color} onInput={(e) => setNewCategory({ ...newCategory, color: (e.currentTarget as HTMLInputElement).value })} />}</Field>
              <button
                type="button"
                onClick={() => {
                  const name = newCategory.name.trim();
                  if (!name) return say('A category needs a name.');
                  if (categoryNames.includes(name)) return say(`A category is already called "${name}".`);
                  edit((p) => ops.addCategory(p, { name, color: newCategory.color }), `Category "${name}" added.`);
                  setNewCategory({ name: '', color: PALETTE[(categoryNames.length + 1) % PALETTE.length]! });
                }}
              >
                Add category
              </button>
            </div>
          </Panel>

          <Panel id="stage" title="Stage and focal point">
            <div class="grid">
              <NumberField label="Stage x" value={stageForm.x} onChange={(x) => setStageForm({ ...stageForm, x })} />
              <NumberField label="Stage y" value={stageForm.y} onChange={(y) => setStageForm({ ...stageForm, y })} />
              <NumberField label="Stage width" value={stageForm.width} min={10} onChange={(width) => setStageForm({ ...stageForm, width })} />
              <NumberField label="Stage height" value={stageForm.height} min={10} onChange={(height) => setStageForm({ ...stageForm, height })} />
            </div>
            <div class="actions">
              <button type="button" onClick={() => edit((p) => ops.setStage(p, stageForm), 'Stage placed.')}>
                Place stage
              </button>
              <button type="button" class="secondary" aria-pressed={mode === 'stage'} onClick={() => setMode(mode === 'stage' ? 'select' : 'stage')}>
                Draw the stage
              </button>
              {stage && (
                <button type="button" class="secondary" onClick={() => edit(ops.removeStage, 'Stage removed.')}>
                  Remove stage
                </button>
              )}
            </div>
            <div class="grid">
              <NumberField label="Focal point x" value={focalForm.x} onChange={(x) => setFocalForm({ ...focalForm, x })} />
              <NumberField label="Focal point y" value={focalForm.y} onChange={(y) => setFocalForm({ ...focalForm, y })} />
            </div>
            <div class="actions">
              <button type="button" onClick={() => edit((p) => ops.setFocalPoint(p, focalForm), `Focal point at ${focalForm.x}, ${focalForm.y}.`)}>
                Set focal point
              </button>
              <button type="button" class="secondary" aria-pressed={mode === 'focal'} onClick={() => setMode(mode === 'focal' ? 'select' : 'focal')}>
                Click to place it
              </button>
              {stage && (
                <button
                  type="button"
                  class="secondary"
                  onClick={() => {
                    const p = { x: Math.round((stage.position?.x ?? 0) + (stage.width ?? 0) / 2), y: Math.round((stage.position?.y ?? 0) + (stage.height ?? 0) / 2) };
                    setFocalForm(p);
                    edit((pl) => ops.setFocalPoint(pl, p), `Focal point at the stage's centre.`);
                  }}
                >
                  At the stage's centre
                </button>
              )}
            </div>
          </Panel>

          <Panel id="legend" title="Legend and keys">
            <ul class="legend">
              <li><svg viewBox="-12 -12 24 24" aria-hidden="true"><circle r="11" fill={UNCATEGORISED} /><path class="flag-wheelchair" d="M-5 -5h10v10h-10z" /></svg> wheelchair place</li>
              <li><svg viewBox="-12 -12 24 24" aria-hidden="true"><circle r="11" fill={UNCATEGORISED} /><circle class="flag-companion" r="4" /></svg> companion seat</li>
              <li><svg viewBox="-12 -12 24 24" aria-hidden="true"><circle r="11" fill={UNCATEGORISED} /><path class="flag-restricted" d="M-7 7L7 -7" /></svg> restricted view</li>
            </ul>
            <p class="hint">
              On the canvas: arrows move the selection (Shift: further), Delete removes it, Escape clears it. Anywhere: Ctrl+Z undoes, Ctrl+Shift+Z (or Ctrl+Y) redoes. Wheel or the zoom buttons zoom; Pan (or the middle button) moves the view.
            </p>
            {problems && <p class="hint" id="designer-problems">{Object.keys(problems).length} problem(s) to fix before saving.</p>}
          </Panel>
        </div>
      </div>
    </div>
  );
}

function CategoryRow(props: { name: string; color: string; onChange(c: { name: string; color: string }): void; onRemove(): void }) {
  const [name, setName] = useState(props.name);
  const [color, setColor] = useState(props.color);
  useEffect(() => {
    setName(props.name);
    setColor(props.color);
  }, [props.name, props.color]);
  return (
    <div class="row">
      <TextField label={`Name of ${props.name}`} value={name} onChange={setName} />
      <Field label={`Colour of ${props.name}`}>{(id) => <input id={id} type="color" value={color} onInput={(e) => setColor((e.currentTarget as HTMLInputElement).value)} />}</Field>
      <button type="button" class="secondary" onClick={() => props.onChange({ name: name.trim(), color })} aria-label={`Save category ${props.name}`}>
        Save
      </button>
      <button type="button" class="secondary" onClick={props.onRemove} aria-label={`Remove category ${props.name}`}>
        Remove
      </button>
    </div>
  );
}
