import { listSigningKeys, rotateSigningKey, withdrawSigningKey } from '../../modules/tickets/ticket-keys.service.js';
import { defineCommand, defineListCommand } from '../command.js';

// The ticket signing keys of D53 (docs/checkin.md "Key rotation"): one active key signs new
// tickets; retired keys stay published to scanners while tickets they signed may still scan.

const list = defineListCommand({
  name: 'ticket-keys:list',
  summary: 'List the ticket signing keys (active, retired, withdrawn)',
  rows: listSigningKeys,
  empty: 'No signing key yet: the first start of the service creates one.',
});

const rotate = defineCommand({
  name: 'ticket-keys:rotate',
  summary: 'A new key pair signs new tickets; the old key stays published while its tickets may scan',
  options: {},
  async run(ctx) {
    const { kid, retired } = await rotateSigningKey(ctx);
    console.log(`New signing key ${kid}${retired ? `; ${retired} is retired (still verifies the tickets it signed)` : ''}.`);
    console.log('Scanners learn the new public key at their next sync; tickets already issued keep their secret.');
  },
});

const withdraw = defineCommand({
  name: 'ticket-keys:withdraw',
  summary: 'Withdraw a retired key (e.g. one that leaked): the tickets it signed stop scanning',
  options: { kid: { type: 'string', required: true, placeholder: '<kid>', help: 'the key id ticket-keys:list shows' } },
  async run(ctx, { values }) {
    await withdrawSigningKey(ctx, values.kid);
    console.log(`Withdrew key ${values.kid}: scanners drop it at their next sync.`);
  },
});

export const commands = [list, rotate, withdraw];
