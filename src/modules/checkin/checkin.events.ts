import type { Db } from '../../db/client.js';
import { enqueueWebhookEvent } from '../webhooks/webhooks.outbox.js';

/** What a `ticket.checked_in` event says about an entry. */
export interface CheckedInTicket {
  ticketId: number;
  channelId: number;
  sessionId: number;
  listId: number;
  deviceName: string;
  scannedAt: Date;
}

/**
 * The `ticket.checked_in` webhook event (D51), written to the outbox inside the scan's transaction
 * for every entry that let a holder in: the event exists if and only if the entry commits. An
 * offline scan that only overtook an earlier entry is not a new check-in and writes none.
 */
export async function onTicketCheckedIn(tx: Db, t: CheckedInTicket): Promise<void> {
  await enqueueWebhookEvent(tx, {
    channelId: t.channelId,
    type: 'ticket.checked_in',
    at: t.scannedAt,
    data: {
      ticket_id: t.ticketId,
      session_id: t.sessionId,
      list_id: t.listId,
      device_name: t.deviceName,
      scanned_at: t.scannedAt.toISOString(),
    },
  });
}
