// What a client sends PostgreSQL, read off the wire, and a pgbench script made of it (bench:flash).
//
// StatementCapture is a TCP proxy between a service and PostgreSQL: it forwards every byte and
// decodes the client's messages (Parse, Bind, Query) into the statements executed with their
// parameters as sent. Because it reads the protocol, it needs nothing from the service (no pool
// wrapper, no logging setting): an older checkout is captured the same way.
//
// pgbenchScript turns two captured purchases into a pgbench script that sends the same statements
// with the same parameters, so that the database-only figure cannot drift from the API's SQL. The
// two purchases tell the constants (the same in both) from the values of one purchase (seats, client
// id, order token, reference, token hash, ticket codes...): those are made fresh for each purchase
// by a first statement (the only one that is not the API's), which pgbench keeps in variables.
import net from 'node:net';

export interface Statement {
  text: string;
  /** Parameters as sent (text format); null for SQL NULL. */
  params: (string | null)[];
  /** Sent as a named prepared statement (Bind of a named statement). */
  named: boolean;
}

/** A proxy to `target` that records the statements of its clients while `recording` is true. */
export class StatementCapture {
  recording = false;
  readonly statements: Statement[] = [];
  private readonly sockets = new Set<net.Socket>();
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<StatementCapture> {
    let capture: StatementCapture | null = null;
    const server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      capture!.sockets.add(client).add(upstream);
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      upstream.pipe(client);
      const decoder = new FrontendDecoder((s) => capture!.recording && capture!.statements.push(s));
      client.on('data', (chunk: Buffer) => {
        decoder.push(chunk);
        upstream.write(chunk);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    capture = new StatementCapture(server, (server.address() as net.AddressInfo).port);
    return capture;
  }

  /** The statements recorded since the last take, and starts afresh. */
  take(): Statement[] {
    return this.statements.splice(0);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Decodes the frontend messages of one connection (PostgreSQL protocol 3). */
class FrontendDecoder {
  private buf = Buffer.alloc(0);
  private started = false;
  /** Prepared statement texts of this connection by name ('' the unnamed one). */
  private readonly texts = new Map<string, string>();
  constructor(private readonly emit: (s: Statement) => void) {}

  push(chunk: Buffer): void {
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      if (!this.started) {
        // Startup or SSL request: no type byte. A protocol 3 startup ends the untyped phase.
        if (this.buf.length < 8) return;
        const len = this.buf.readInt32BE(0);
        if (this.buf.length < len) return;
        if (this.buf.readInt32BE(4) === 196608) this.started = true;
        this.buf = this.buf.subarray(len);
        continue;
      }
      if (this.buf.length < 5) return;
      const len = this.buf.readInt32BE(1);
      if (this.buf.length < 1 + len) return;
      this.message(String.fromCharCode(this.buf[0]!), this.buf.subarray(5, 1 + len));
      this.buf = this.buf.subarray(1 + len);
    }
  }

  private message(type: string, body: Buffer): void {
    let at = 0;
    const cstr = () => {
      const end = body.indexOf(0, at);
      const s = body.toString('utf8', at, end);
      at = end + 1;
      return s;
    };
    const int16 = () => {
      const v = body.readInt16BE(at);
      at += 2;
      return v;
    };
    if (type === 'P') {
      const name = cstr();
      this.texts.set(name, cstr());
    } else if (type === 'Q') {
      this.emit({ text: cstr(), params: [], named: false });
    } else if (type === 'B') {
      cstr(); // portal
      const name = cstr();
      const formats = Array.from({ length: int16() }, int16);
      const params = Array.from({ length: int16() }, (_, i) => {
        const len = body.readInt32BE(at);
        at += 4;
        if (len < 0) return null;
        const value = body.subarray(at, at + len);
        at += len;
        if ((formats.length === 1 ? formats[0] : formats[i] ?? 0) === 1) throw new Error('bench:flash capture: a binary parameter (not expected from node-postgres)');
        return value.toString('utf8');
      });
      this.emit({ text: this.texts.get(name) ?? '', params, named: name !== '' });
    }
  }
}

/** One captured purchase and what the bench chose for it. */
export interface CapturedPurchase {
  statements: Statement[];
  /** The two seat ids it bought. */
  seats: [number, number];
  clientId: string;
}

const DATE = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

export interface PgbenchScript {
  script: string;
  /** pgbench -D definitions of the constants. */
  defines: string[];
  /** -M: prepared when the service sent its statements as named prepared statements. */
  mode: 'extended' | 'prepared';
  /** Statements of one purchase as the API sends them (the script adds one). */
  statements: number;
  /** One line per statement: where a transaction ends (COMMIT, or a statement of its own) and its first words. */
  summary: string[];
}

/**
 * The pgbench script of a purchase from two captured ones (same statements, other values). Purchase
 * n of a run takes seats `firstSeat + 2 (n - base)` and the next, as the API buyers do.
 */
export function pgbenchScript(a: CapturedPurchase, b: CapturedPurchase, opts: { sequence: string; firstSeat: number; base: number; seatStep: number }): PgbenchScript {
  if (a.statements.length !== b.statements.length || a.statements.some((s, i) => s.text !== b.statements[i]!.text)) {
    throw new Error(`bench:flash: two purchases sent different statements (${a.statements.length} and ${b.statements.length}); capture again`);
  }
  const defines: string[] = [];
  const tokenColumns: string[] = [];
  const composite: string[] = [];
  const tokenVar = new Map<string, string>();
  let uniques = 0;
  /** The prelude column standing for one varying token of a parameter. */
  const tokenExpr = (ta: string, tb: string): string => {
    const key = `${ta}\0${tb}`;
    let name = tokenVar.get(key);
    if (name) return name;
    name = `t${tokenVar.size}`;
    tokenVar.set(key, name);
    let expr: string;
    const seat = [0, 1].find((x) => ta === String(a.seats[x]) && tb === String(b.seats[x]));
    if (seat !== undefined) expr = `(${opts.firstSeat} + ${opts.seatStep} * (n - ${opts.base}) + ${seat})::text`;
    else if (ta === a.clientId && tb === b.clientId) expr = `'flashpg' || n`;
    else if (UUID.test(ta)) expr = 'gen_random_uuid()::text';
    else {
      // Unique per purchase, of the same length and alphabet; the common prefix kept ('TQ-').
      let p = 0;
      while (p < ta.length && ta[p] === tb[p]) p++;
      const len = ta.length - p;
      const hex = `lpad(to_hex(n * 64 + ${uniques++}), ${len}, '0')`;
      const body = len >= 10 ? hex : `substr(md5(random()::text), 1, ${len})`;
      expr = `${quote(ta.slice(0, p))} || ${/^[0-9A-Z]+$/.test(ta.slice(p)) ? `upper(${body})` : body}`;
    }
    tokenColumns.push(`${expr} AS ${name}`);
    return name;
  };
  const lines = a.statements.map((s, i) => {
    const sb = b.statements[i]!;
    const text = s.text.replace(/\$(\d+)/g, (_, d: string) => {
      const j = Number(d) - 1;
      const va = s.params[j] ?? null;
      const vb = sb.params[j] ?? null;
      if (va === null) return 'NULL';
      if (va === vb || DATE.test(va)) {
        const name = `c${i}_${j}`;
        defines.push('-D', `${name}=${va}`);
        return `:${name}`;
      }
      if (vb === null) throw new Error(`bench:flash: parameter ${j + 1} of statement ${i + 1} is NULL in one purchase only`);
      const split = (v: string) => v.split(/([{}",\s:])/);
      const [ta, tb] = [split(va), split(vb)];
      const parts = ta.length === tb.length ? ta.map((t, k) => (t === tb[k] ? quote(t) : tokenExpr(t, tb[k]!))) : [tokenExpr(va, vb)];
      const name = `v${composite.length}`;
      composite.push(`${parts.filter((p) => p !== "''").join(' || ') || "''"} AS ${name}`);
      return `:${name}`;
    });
    if (text.includes('\n')) return text.replace(/\s*\n\s*/g, ' ');
    return text;
  });
  const prelude = `SELECT * FROM (SELECT ${['n', ...composite].join(', ')} FROM (SELECT n, ${tokenColumns.join(', ') || '1 AS none'} FROM (SELECT nextval('${opts.sequence}') AS n) s) t) x \\gset`;
  const named = a.statements.filter((s) => s.params.length > 0);
  return {
    script: [prelude, ...lines.map((l) => `${l.replace(/;\s*$/, '')};`)].join('\n') + '\n',
    defines,
    mode: named.length > 0 && named.every((s) => s.named) ? 'prepared' : 'extended',
    statements: a.statements.length,
    summary: summarise(a.statements),
  };
}

/** One line per statement: `tx end` where a transaction ends (COMMIT, or a statement sent on its own), and its first words. */
function summarise(statements: Statement[]): string[] {
  let inTx = false;
  return statements.map((s) => {
    const head = s.text.replace(/\s+/g, ' ').trim().slice(0, 90);
    const word = head.split(' ')[0]!.toLowerCase();
    if (word === 'begin' || word === 'start') inTx = true;
    const ends = word === 'commit' || word === 'rollback' || !inTx;
    if (word === 'commit' || word === 'rollback') inTx = false;
    return `${ends ? 'tx end' : '      '}${s.named ? ' (named)' : ''} ${head}`;
  });
}
