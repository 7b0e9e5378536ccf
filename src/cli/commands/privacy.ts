import { CLI_ACTOR } from '../../platform/actor.js';
import { eraseBuyer, exportBuyer } from '../../modules/audience/personal-data.service.js';
import { defineCommand } from '../command.js';

// One buyer's personal data from the operator command line (D68, docs/privacy.md).

const EMAIL = { type: 'string', required: true, placeholder: '<email>', help: "the buyer's e-mail address (any letter case)" } as const;

const erase = defineCommand({
  name: 'personal-data:erase',
  summary: "Erase one buyer's personal data everywhere it is kept; amounts, seats and tickets stay",
  options: { email: EMAIL },
  async run(ctx, { values }) {
    const counts = await eraseBuyer(ctx, CLI_ACTOR, values.email);
    console.log(`erased: ${counts.customers} buyer records, ${counts.orders} orders, ${counts.payments} payments, ${counts.emails} e-mails, ${counts.log_entries} log entries`);
  },
});

const exportData = defineCommand({
  name: 'personal-data:export',
  summary: 'Print everything kept about one buyer as JSON',
  options: { email: EMAIL },
  async run(ctx, { values }) {
    console.log(JSON.stringify(await exportBuyer(ctx, CLI_ACTOR, values.email), null, 2));
  },
});

export const commands = [erase, exportData];
