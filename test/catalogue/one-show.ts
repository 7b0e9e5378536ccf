// The smallest catalogue a test can import and sell from, so that a test's document names only what
// the test is about.

interface OneShow {
  /** The organiser's key (also its objects' `organiser`) and name. */
  organiser: string;
  organiserName: string;
  /** The event's names by language. */
  names: Record<string, string>;
  /** Places of the venue's one sector, an unnumbered floor (key `floor`). */
  capacity?: number;
  /** Fields added to (or replacing those of) the event `e`. */
  event?: Record<string, unknown>;
  /** Fields added to (or replacing those of) the session `s`: on 2031-01-01 at 19:00 UTC, one rate `g` of 10. */
  session?: Record<string, unknown>;
}

/** A catalogue import document: one organiser, its venue `v` with one floor, one event `e` there with one session. */
export function oneShowDocument(o: OneShow) {
  return {
    organisers: [{ key: o.organiser, name: o.organiserName }],
    venues: [{ key: 'v', organiser: o.organiser, name: 'Hall', sectors: [{ key: 'floor', name: 'Floor', numbered: false, capacity: o.capacity ?? 5 }] }],
    events: [
      {
        key: 'e',
        organiser: o.organiser,
        venue: 'v',
        names: o.names,
        ...o.event,
        sessions: [{ key: 's', start_datetime: '2031-01-01T19:00:00Z', rates: [{ key: 'g', name: 'General', price: 10 }], ...o.session }],
      },
    ],
  };
}
