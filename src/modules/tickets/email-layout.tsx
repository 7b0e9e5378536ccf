import crypto from 'node:crypto';
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Config } from '../../config.js';

// What every buyer e-mail shares (tickets, "find my order", refunds...), so that each kind is a whole
// HTML document in the buyer's language, carries a Reply-To to a person and a Message-ID that no
// other message has (issue 31 item 5). The transport (email-queue.service) sends what this makes.

/** A composed message, ready for the transport. */
export interface OutgoingEmail {
  messageId: string;
  from: string;
  replyTo?: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
}

/** The HTML part: a whole document with its language, charset and title, the body in a readable column. */
export function emailDocument(lang: string, title: string, body: ComponentChildren): string {
  return `<!DOCTYPE html>${renderToString(
    <html lang={lang.slice(0, 2) || 'es'}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
      </head>
      <body style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1b1f24">
        <div style="max-width:600px;margin:0 auto">{body}</div>
      </body>
    </html>,
  )}`;
}

/**
 * The text and HTML of a message that asks for one action: paragraphs, a button to `link` (in the
 * text part, `action: link`), optionally the link written out (for clients that hide buttons), and
 * a closing paragraph.
 */
export function actionMessage(m: { lang: string; subject: string; lines: string[]; action: string; link: string; showLink?: boolean; closing: string }) {
  const text = [...m.lines, '', `${m.action}: ${m.link}`, '', m.closing, ''].join('\n');
  const html = emailDocument(
    m.lang,
    m.subject,
    <>
      {m.lines.map((l) => (
        <p>{l}</p>
      ))}
      <p>
        <a href={m.link} style="display:inline-block;padding:10px 18px;background:#1b5e20;color:#ffffff;text-decoration:none;border-radius:4px">
          {m.action}
        </a>
      </p>
      {m.showLink && <p style="font-size:13px;color:#555">{m.link}</p>}
      <p>{m.closing}</p>
    </>,
  );
  return { text, html };
}

/** The domain of the Message-ID: the sender's, unless it is an address literal, then a fixed name. */
function idDomain(config: Config): string {
  const address = /<([^<>]+)>$/.exec(config.mailFrom)?.[1] ?? config.mailFrom;
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return domain.startsWith('[') ? 'taquilla.invalid' : domain;
}

/**
 * `<key@domain>`: `key` is the outbox row's random message_key (kept across retries of the row, so
 * that a repeated delivery is one message to the client; new at a resend), or a fresh random one.
 */
const messageIdOf = (config: Config, key: string = crypto.randomUUID()) => `<${key}@${idDomain(config)}>`;

/** The sender, the Reply-To (the organiser's box office, else MAIL_REPLY_TO) and the Message-ID. */
export function envelopeOf(config: Config, replyTo: string | null | undefined, messageKey?: string) {
  const reply = replyTo || config.mailReplyTo;
  return { from: config.mailFrom, messageId: messageIdOf(config, messageKey), ...(reply ? { replyTo: reply } : {}) };
}
