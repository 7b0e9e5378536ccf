// Operator commands for closed sales: refunds, reservations (orders issued without payment) and
// the ticket e-mail queue.
import os from 'node:os';
import type { AppContext } from '../../app-context.js';
import { findChannelBySlug } from '../../modules/channels/channels.service.js';
import { refundOrder } from '../../modules/checkout/refund.service.js';
import { createReservation } from '../../modules/checkout/reservation.service.js';
import { processEmailQueue } from '../../modules/tickets/email-queue.js';
import type { CliArgs, CliCommand } from '../command.js';

const str = (args: CliArgs, name: string): string | undefined => {
  const v = args.flags[name];
  return typeof v === 'string' ? v : undefined;
};

const fail = (message: string, usage: string) => {
  console.error(`${message}\nusage: ${usage}`);
  return 2;
};

const refund: CliCommand = {
  name: 'orders:refund',
  summary: 'Refund a completed order: release its seats, void its tickets, record the refund',
  usage: 'orders:refund <order_reference> --reason "<text>" [--channel <slug>] [--actor <name>]',
  async run(ctx: AppContext, args: CliArgs) {
    const reference = args.positional[0];
    const reason = str(args, 'reason');
    if (!reference || !reason) return fail('an order reference and --reason are required', this.usage);
    let channelId: number | undefined;
    const slug = str(args, 'channel');
    if (slug) {
      const channel = await findChannelBySlug(ctx, slug);
      if (!channel) return fail(`unknown channel ${slug}`, this.usage);
      channelId = channel.id;
    }
    const result = await refundOrder(ctx, { channelId, reference, reason, actor: str(args, 'actor') ?? `cli:${os.userInfo().username}` });
    console.log(JSON.stringify(result, null, 2));
  },
};

const reserve: CliCommand = {
  name: 'orders:reserve',
  summary: 'Issue an order without payment (type reservation): seats sold, tickets issued and e-mailed',
  usage:
    'orders:reserve --channel <slug> --items <session_seat_id>:<rate_id>[,...] --name <name> --surname <surname> --email <email> [--phone <phone>] [--lang es]',
  async run(ctx: AppContext, args: CliArgs) {
    const channelSlug = str(args, 'channel');
    const itemsArg = str(args, 'items');
    if (!channelSlug || !itemsArg) return fail('--channel and --items are required', this.usage);
    const items = itemsArg.split(',').map((pair) => {
      const [seat, rate] = pair.split(':');
      return { session_seat_id: Number(seat), rate_id: Number(rate) };
    });
    const result = await createReservation(ctx, {
      channelSlug,
      items,
      buyer: { name: str(args, 'name') ?? '', surname: str(args, 'surname') ?? '', email: str(args, 'email') ?? '', phone: str(args, 'phone') ?? null },
      lang: str(args, 'lang'),
    });
    console.log(JSON.stringify(result, null, 2));
  },
};

const sendEmails: CliCommand = {
  name: 'orders:send-emails',
  summary: 'Send the due ticket e-mails of the queue now (the service also does this every few seconds)',
  usage: 'orders:send-emails',
  async run(ctx: AppContext) {
    let total = { claimed: 0, sent: 0, skipped: 0, retrying: 0, failed: 0 };
    for (;;) {
      const r = await processEmailQueue(ctx);
      total = { claimed: total.claimed + r.claimed, sent: total.sent + r.sent, skipped: total.skipped + r.skipped, retrying: total.retrying + r.retrying, failed: total.failed + r.failed };
      if (r.claimed === 0 || r.retrying + r.failed === r.claimed) break;
    }
    console.log(JSON.stringify(total));
    return total.retrying + total.failed > 0 ? 1 : 0;
  },
};

export const commands: CliCommand[] = [refund, reserve, sendEmails];
