// Operator commands for closed sales: refunds, reservations (orders issued without payment) and
// the ticket e-mail queue.
import os from 'node:os';
import { Type } from 'typebox';
import { getChannelBySlug } from '../../modules/channels/channels.service.js';
import { refundOrder } from '../../modules/checkout/refund.service.js';
import { createReservation } from '../../modules/checkout/reservation.service.js';
import { processEmailQueue } from '../../modules/tickets/email-queue.service.js';
import { defineCommand } from '../command.js';
import { printJson } from '../output.js';

const refund = defineCommand({
  name: 'orders:refund',
  summary: 'Refund a completed order: release its seats, void its tickets, record the refund',
  positionals: [{ name: 'order_reference', required: true, help: 'the reference the buyer has (TQ-...)' }],
  options: {
    reason: { type: 'string', required: true, placeholder: '"<text>"', help: 'why, for the audit trail' },
    channel: { type: 'string', placeholder: '<slug>', help: 'the channel the order must belong to' },
    actor: { type: 'string', placeholder: '<name>', help: 'who refunds (default cli:<user name>)' },
  },
  async run(ctx, { values, positionals }) {
    const channelId = values.channel === undefined ? undefined : (await getChannelBySlug(ctx, values.channel)).id;
    const result = await refundOrder(ctx, {
      channelId,
      reference: positionals[0]!,
      reason: values.reason,
      actor: values.actor ?? `cli:${os.userInfo().username}`,
    });
    printJson(result);
  },
});

const reserve = defineCommand({
  name: 'orders:reserve',
  summary: 'Issue an order without payment (type reservation): seats sold, tickets issued and e-mailed',
  options: {
    channel: { type: 'string', required: true, placeholder: '<slug>', help: 'the channel that issues it' },
    items: {
      type: 'string',
      required: true,
      placeholder: '<session_seat_id>:<rate_id>[,...]',
      help: 'the seats and their rates',
      schema: Type.String({ pattern: '^[0-9]{1,10}:[0-9]{1,10}(,[0-9]{1,10}:[0-9]{1,10})*$' }),
      problem: 'must be <session_seat_id>:<rate_id> pairs separated by commas',
    },
    name: { type: 'string', required: true, placeholder: '<name>', help: "the buyer's name" },
    surname: { type: 'string', required: true, placeholder: '<surname>', help: "the buyer's surname" },
    email: { type: 'string', required: true, placeholder: '<email>', help: "the buyer's e-mail address (the tickets go there)" },
    phone: { type: 'string', placeholder: '<phone>', help: "the buyer's phone" },
    lang: { type: 'string', placeholder: '<lang>', help: "the order's language (default the channel's)" },
  },
  async run(ctx, { values }) {
    const items = values.items.split(',').map((pair) => {
      const [seat, rate] = pair.split(':');
      return { session_seat_id: Number(seat), rate_id: Number(rate) };
    });
    const result = await createReservation(ctx, {
      channelSlug: values.channel,
      items,
      buyer: { name: values.name, surname: values.surname, email: values.email, phone: values.phone ?? null },
      lang: values.lang,
    });
    printJson(result);
  },
});

const sendEmails = defineCommand({
  name: 'orders:send-emails',
  summary: 'Send the due ticket e-mails of the queue now (the service also does this every few seconds)',
  options: {},
  async run(ctx) {
    let total = { claimed: 0, sent: 0, skipped: 0, retrying: 0, failed: 0 };
    for (;;) {
      const r = await processEmailQueue(ctx);
      total = { claimed: total.claimed + r.claimed, sent: total.sent + r.sent, skipped: total.skipped + r.skipped, retrying: total.retrying + r.retrying, failed: total.failed + r.failed };
      if (r.claimed === 0 || r.retrying + r.failed === r.claimed) break;
    }
    console.log(JSON.stringify(total));
    return total.retrying + total.failed > 0 ? 1 : 0;
  },
});

export const commands = [refund, reserve, sendEmails];
