import { SMTPServer } from 'smtp-server';

// A real SMTP peer for the e-mail tests (test/tickets/email.test.ts, test/fleet/fleet.test.ts).

export interface Received {
  from: string | undefined;
  to: string[];
  raw: string;
}

/** An SMTP refusal (5xx), as smtp-server sends it. */
const refusal = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/**
 * What a strict Postfix (reject_non_fqdn_sender, strict_rfc821_envelopes, header checks of a
 * careful relay) refuses of a sender domain: a bare IP address (it must be a literal, `[127.0.0.1]`),
 * a name without a dot (`localhost`). Null when accepted.
 */
export function senderDomainProblem(address: string): string | null {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  if (!address.includes('@') || !domain) return '5.1.7 Sender address rejected: need fully-qualified address';
  if (/^\[(\d{1,3}(\.\d{1,3}){3}|IPv6:[0-9A-Fa-f:.]+)\]$/.test(domain)) return null;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(domain)) return '5.1.7 Sender address rejected: bare IP address domain, write it as an address literal';
  if (!/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(domain)) return '5.5.2 Sender address rejected: need fully-qualified hostname';
  return null;
}

/** The mailboxes of an address header, split at commas outside quotes, angle brackets and comments. */
function splitAddressList(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let angle = 0;
  let comment = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (quoted && ch === '\\') {
      current += ch + (value[++i] ?? '');
      continue;
    }
    if (ch === '"' && !comment) quoted = !quoted;
    else if (!quoted && ch === '<') angle++;
    else if (!quoted && ch === '>') angle--;
    else if (!quoted && ch === '(') comment++;
    else if (!quoted && ch === ')') comment--;
    else if (ch === ',' && !quoted && !angle && !comment) {
      parts.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  parts.push(current.trim());
  return parts.filter((p) => p !== '');
}

/** The message's header fields, unfolded, by lower-case name (the last one of a name wins). */
export function headersOf(raw: string): Map<string, string> {
  const head = raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const fields = new Map<string, string>();
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return fields;
}

/** What a strict relay refuses of a message's header; null when it takes the message. */
export function headerProblem(raw: string): string | null {
  const head = raw.split(/\r?\n\r?\n/, 1)[0]!;
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(head)) return '5.6.7 non-ASCII header without SMTPUTF8';
  if (head.split(/\r?\n/).some((l) => l.length > 998)) return '5.6.0 header line longer than 998 characters';
  const h = headersOf(raw);
  for (const name of ['from', 'date', 'message-id']) if (!h.get(name)) return `5.6.0 missing ${name} header`;
  if (!/^<[^<>@\s]+@[^<>@\s]+>$/.test(h.get('message-id')!)) return '5.6.0 malformed Message-ID';
  for (const name of ['from', 'reply-to', 'to']) {
    const value = h.get(name);
    if (value === undefined) continue;
    const boxes = splitAddressList(value);
    if (name === 'from' && boxes.length !== 1) return `5.6.0 From: must name one mailbox (got ${boxes.length}: an unquoted comma in a display name?)`;
    for (const box of boxes) {
      const address = /<([^<>]*)>\s*$/.exec(box)?.[1] ?? box;
      if (!/^[^\s@"<>]+@[^\s@<>]+$/.test(address)) return `5.6.0 malformed ${name} mailbox "${box}"`;
    }
  }
  return null;
}

/** A real SMTP peer on a fixed port, that can be stopped and started again; `strict` refuses what a strict Postfix refuses. */
export class SmtpPeer {
  received: Received[] = [];
  /** What the strict peer refused, with the reason. */
  refused: { stage: 'mail' | 'data'; reason: string }[] = [];
  private server: SMTPServer | null = null;
  constructor(
    readonly port: number,
    readonly opts: { strict?: boolean } = {},
  ) {}
  async start() {
    const strict = this.opts.strict === true;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onMailFrom: (address, _session, callback) => {
        const problem = strict ? senderDomainProblem(address.address) : null;
        if (problem) {
          this.refused.push({ stage: 'mail', reason: problem });
          return callback(refusal(553, problem));
        }
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const problem = strict ? headerProblem(raw) : null;
          if (problem) {
            this.refused.push({ stage: 'data', reason: problem });
            return callback(refusal(554, problem));
          }
          this.received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }
  async stop() {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

export { freePort } from '../bench/bench-processes.js';
