// The status polls of bench:onsale, in a process of their own (forked by bench/onsale.bench.ts), made
// cheap so that the figure is the service's and not the generator's: raw keep-alive sockets (one
// request in flight on each, as a browser's connection), each request's bytes built once per ETag and
// reused, the answers parsed only for their status line, Content-Length and ETag, latencies counted
// in a fixed histogram (no array of samples, no sort).
//
// Buyer i starts polling when it has joined (the bench's join schedule, from `joinStart` to
// `joinEnd`), then every `pollMs` with 20 % jitter, sending the ETag it last saw (If-None-Match).
// Messages from the bench: {type: 'window'} ends the measured window under way (its figures come
// back, null before the first) and starts the next; {type: 'stop'} ends the last one and the process.
import net from 'node:net';

export interface PollGeneratorOptions {
  host: string;
  port: number;
  path: string;
  buyers: number;
  pollMs: number;
  connections: number;
  joinStart: number;
  joinEnd: number;
}

/** A latency distribution in 0.05 ms steps up to 10 s (beyond: the last step). */
class Histogram {
  private static readonly STEP = 0.05;
  private readonly counts = new Uint32Array(200_001);
  count = 0;
  max = 0;
  add(ms: number) {
    const i = Math.min(this.counts.length - 1, Math.max(0, Math.round(ms / Histogram.STEP)));
    this.counts[i]!++;
    this.count++;
    if (ms > this.max) this.max = ms;
  }
  percentile(p: number): number | null {
    if (this.count === 0) return null;
    const rank = Math.min(this.count - 1, Math.floor(this.count * p));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen > rank) return i * Histogram.STEP;
    }
    return this.max;
  }
  figures() {
    return { count: this.count, p50: this.percentile(0.5), p99: this.percentile(0.99), max: this.count ? this.max : null };
  }
}

export interface PollFigures {
  /** Polls answered in the window. */
  served: number;
  notModified: number;
  errors: number;
  firstErrors: string[];
  windowMs: number;
  /** Send to full answer. */
  latency: ReturnType<Histogram['figures']>;
  /** Due time to the moment the request was written: the generator's timer lag plus any wait for a free connection. */
  late: ReturnType<Histogram['figures']>;
  /** Due time to the moment the generator's timer took the poll up: its own event loop's lag alone. */
  timerLate: ReturnType<Histogram['figures']>;
  /** This process's CPU in the window (ms). */
  cpuMs: number;
  /** Polls still waiting for a connection when the window ended. */
  backlog: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

function run(o: PollGeneratorOptions) {
  const SLOT_MS = 50;
  // Interned ETags: each buyer keeps an index; each ETag's request bytes are built once.
  const etags: string[] = [''];
  const etagIndex = new Map<string, number>([['', 0]]);
  const lastEtag = new Uint16Array(o.buyers);
  const requestBytes: Buffer[] = [];
  const bytesFor = (i: number) =>
    (requestBytes[i] ??= Buffer.from(`GET ${o.path} HTTP/1.1\r\nHost: ${o.host}:${o.port}\r\nAccept: application/json\r\n${i === 0 ? '' : `If-None-Match: ${etags[i]}\r\n`}\r\n`, 'latin1'));

  let measuring = false;
  let stopping = false;
  let windowStart = 0;
  let cpuStart = process.cpuUsage();
  let served = 0;
  let notModified = 0;
  let errors = 0;
  const firstErrors: string[] = [];
  let latency = new Histogram();
  let late = new Histogram();
  let timerLate = new Histogram();
  const fail = (what: string) => {
    errors++;
    if (firstErrors.length < 5) firstErrors.push(what);
  };

  // Due polls waiting for a free connection (buyer, due time), first in first out.
  const waitingBuyer: number[] = [];
  const waitingDue: number[] = [];
  let waitingHead = 0;

  const wheel = new Map<number, number[]>();
  const schedule = (buyer: number, atMs: number) => {
    const slot = Math.ceil(atMs / SLOT_MS);
    const list = wheel.get(slot);
    if (list) list.push(buyer);
    else wheel.set(slot, [buyer]);
  };

  class Connection {
    private socket!: net.Socket;
    private buffer: Buffer | null = null;
    busy = false;
    private buyer = -1;
    private sentAt = 0;
    constructor() {
      this.open();
    }
    close() {
      this.socket.destroy();
    }
    private open() {
      this.socket = net.connect({ host: o.host, port: o.port, noDelay: true });
      this.socket.on('data', (chunk: Buffer) => this.data(chunk));
      this.socket.on('error', (err) => fail(`socket: ${err.message}`));
      this.socket.on('close', () => {
        this.buffer = null;
        if (this.busy) {
          fail('connection closed with a poll in flight');
          this.done();
        }
        if (!stopping) setTimeout(() => this.open(), 100);
      });
    }
    send(buyer: number, due: number) {
      this.busy = true;
      this.buyer = buyer;
      const now = Date.now();
      if (measuring) late.add(now - due);
      this.sentAt = performance.now();
      this.socket.write(bytesFor(lastEtag[buyer]!));
    }
    private data(chunk: Buffer) {
      const buf = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
      const end = buf.indexOf(HEADER_END);
      if (end < 0) {
        this.buffer = buf;
        return;
      }
      const head = buf.toString('latin1', 0, end);
      const lengthMatch = /\r\ncontent-length: *(\d+)/i.exec(head);
      const total = end + 4 + (lengthMatch ? Number(lengthMatch[1]) : 0);
      if (buf.length < total) {
        this.buffer = buf;
        return;
      }
      this.buffer = buf.length > total ? buf.subarray(total) : null;
      const status = Number(head.slice(9, 12));
      if (measuring) {
        latency.add(performance.now() - this.sentAt);
        served++;
        if (status === 304) notModified++;
        else if (status !== 200) fail(`poll: ${status} ${buf.toString('utf8', end + 4, Math.min(total, end + 204))}`);
      }
      const tag = /\r\netag: *([^\r]+)/i.exec(head)?.[1];
      if (tag !== undefined) {
        let i = etagIndex.get(tag);
        if (i === undefined) {
          i = etags.push(tag) - 1;
          etagIndex.set(tag, i);
        }
        lastEtag[this.buyer] = i;
      }
      this.done();
    }
    private done() {
      const buyer = this.buyer;
      this.busy = false;
      this.buyer = -1;
      if (!stopping && buyer >= 0) schedule(buyer, Date.now() + o.pollMs * (0.8 + Math.random() * 0.4));
      pump(this);
    }
  }

  const connections = Array.from({ length: o.connections }, () => new Connection());
  const idle: Connection[] = [...connections];
  const pump = (free?: Connection) => {
    if (free && !free.busy) idle.push(free);
    while (idle.length && waitingHead < waitingBuyer.length) {
      const c = idle.pop()!;
      c.send(waitingBuyer[waitingHead]!, waitingDue[waitingHead]!);
      waitingHead++;
    }
    if (waitingHead > 65_536 && waitingHead * 2 > waitingBuyer.length) {
      waitingBuyer.splice(0, waitingHead);
      waitingDue.splice(0, waitingHead);
      waitingHead = 0;
    }
  };

  // Each buyer's first poll: within a poll period after its join.
  for (let i = 0; i < o.buyers; i++) schedule(i, o.joinStart + ((o.joinEnd - o.joinStart) * i) / o.buyers + 50 + Math.random() * o.pollMs);

  const timer = setInterval(() => {
    const now = Date.now();
    const current = Math.floor(now / SLOT_MS);
    for (const [slot, list] of wheel) {
      if (slot > current) continue;
      wheel.delete(slot);
      const due = slot * SLOT_MS;
      for (const buyer of list) {
        if (measuring) timerLate.add(now - due);
        waitingBuyer.push(buyer);
        waitingDue.push(due);
      }
    }
    pump();
  }, SLOT_MS / 2);

  const figuresOfWindow = (): PollFigures => {
    const cpu = process.cpuUsage(cpuStart);
    return {
      served,
      notModified,
      errors,
      firstErrors: [...firstErrors],
      windowMs: Date.now() - windowStart,
      latency: latency.figures(),
      late: late.figures(),
      timerLate: timerLate.figures(),
      cpuMs: (cpu.user + cpu.system) / 1000,
      backlog: waitingBuyer.length - waitingHead,
    };
  };
  const newWindow = () => {
    measuring = true;
    windowStart = Date.now();
    cpuStart = process.cpuUsage();
    served = notModified = errors = 0;
    firstErrors.length = 0;
    latency = new Histogram();
    late = new Histogram();
    timerLate = new Histogram();
  };

  process.on('message', (m: { type: string }) => {
    if (m.type === 'window') {
      // The figures of the window so far (none before the first), and a new window from now.
      const figures = measuring ? figuresOfWindow() : null;
      newWindow();
      process.send!({ type: 'figures', figures });
    } else if (m.type === 'stop') {
      const figures = measuring ? figuresOfWindow() : null;
      measuring = false;
      stopping = true;
      clearInterval(timer);
      for (const c of connections) c.close();
      process.send!({ type: 'figures', figures }, () => process.exit(0));
    }
  });
}

if (process.send) {
  run(JSON.parse(process.argv[2]!) as PollGeneratorOptions);
  process.send({ type: 'ready' });
}
