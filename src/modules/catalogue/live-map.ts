import crypto from 'node:crypto';

// The in-memory availability of one session (D62): the status of every seat that is not free, the
// free places of each sector, and a short log of the versions it went through, so that a buyer's
// poll is answered with what changed since the version it last saw without asking the database.
//
// A version is named by a hash of its content (the cursor), not by a counter: every instance that
// reads the same state from the database gives it the same name, so a cursor (or ETag) from one
// instance of a fleet is understood by the others, and a state that comes back (a hold released)
// gets back its old name.

type SeatStatus = 'available' | 'held' | 'sold' | 'blocked';

/** One state of the session as read from the database. */
export interface LiveState {
  /** Seats that are not free (session_seat_id -> status). */
  taken: ReadonlyMap<number, Exclude<SeatStatus, 'available'>>;
  /** Free places per sector, in the sectors' order. */
  zones: ReadonlyArray<{ sector_id: number; available: number }>;
}

interface SeatChange {
  session_seat_id: number;
  status: SeatStatus;
}

/** What a poll is answered: the changes since its cursor, or every taken seat (`snapshot`). */
export interface LiveDelta {
  cursor: string;
  snapshot: boolean;
  changes: SeatChange[];
  zones: LiveState['zones'];
}

/** Versions kept for deltas; an older cursor gets a snapshot (about a minute of a busy on-sale). */
const MAX_VERSIONS = 256;
/** Seat changes kept across those versions; beyond this a snapshot is smaller than a delta. */
const MAX_LOGGED_CHANGES = 50_000;

interface Version {
  cursor: string;
  /** What changed from the previous version to this one. */
  changes: Map<number, SeatStatus>;
}

function cursorOf(state: LiveState): string {
  const hash = crypto.createHash('sha256');
  for (const [id, status] of [...state.taken].sort((a, b) => a[0] - b[0])) hash.update(`${id}${status[0]},`);
  hash.update('|');
  for (const z of state.zones) hash.update(`${z.sector_id}:${z.available},`);
  return hash.digest('base64url').slice(0, 22);
}

export class LiveMap {
  private state: LiveState | null = null;
  private versions: Version[] = [];
  private logged = 0;

  get current(): LiveState | null {
    return this.state;
  }

  get cursor(): string | null {
    return this.versions.at(-1)?.cursor ?? null;
  }

  /** Takes a state read from the database; true when it differs from the current one. */
  apply(next: LiveState): boolean {
    const cursor = cursorOf(next);
    if (cursor === this.cursor) {
      this.state = next;
      return false;
    }
    const changes = new Map<number, SeatStatus>();
    const before = this.state?.taken ?? new Map<number, SeatStatus>();
    for (const [id, status] of next.taken) if (before.get(id) !== status) changes.set(id, status);
    for (const id of before.keys()) if (!next.taken.has(id)) changes.set(id, 'available');
    this.state = next;
    this.versions.push({ cursor, changes });
    this.logged += changes.size;
    while (this.versions.length > MAX_VERSIONS || (this.logged > MAX_LOGGED_CHANGES && this.versions.length > 1)) {
      this.logged -= this.versions.shift()!.changes.size;
    }
    return true;
  }

  /**
   * The changes from the version named `since` to now; a snapshot (every seat not free) when
   * `since` is absent, unknown here or too old. The latest version of that name is used: a state
   * that came back has the same content, so the changes since either are the same.
   */
  since(since: string | undefined): LiveDelta {
    const state = this.state!;
    const cursor = this.cursor!;
    let from = -1;
    if (since) for (let i = this.versions.length - 1; i >= 0 && from < 0; i--) if (this.versions[i]!.cursor === since) from = i;
    if (from < 0) {
      const changes = [...state.taken].map(([id, status]) => ({ session_seat_id: id, status }));
      return { cursor, snapshot: true, changes, zones: state.zones };
    }
    const merged = new Map<number, SeatStatus>();
    for (let i = from + 1; i < this.versions.length; i++) for (const [id, status] of this.versions[i]!.changes) merged.set(id, status);
    const changes = [...merged].sort((a, b) => a[0] - b[0]).map(([id, status]) => ({ session_seat_id: id, status }));
    return { cursor, snapshot: false, changes, zones: state.zones };
  }
}
