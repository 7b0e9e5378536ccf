import type { Db } from '../../db/client.js';

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
 * WEBHOOK CALL SITE (issue 18 part 5, for issue 17's webhooks): called inside the scan's
 * transaction for every entry that let a holder in, so that an event is written if and only if the
 * entry commits. At merge, the lead wires it to the outbox of branch i17-webhooks:
 *   await enqueueWebhookEvent(tx, { channelId: t.channelId, type: 'ticket.checked_in',
 *     data: { ticket_id: t.ticketId, session_id: t.sessionId, list_id: t.listId,
 *             device_name: t.deviceName, scanned_at: t.scannedAt.toISOString() } });
 * Until then there is no outbox to write to, so it does nothing.
 */
export async function onTicketCheckedIn(tx: Db, t: CheckedInTicket): Promise<void> {
  void tx;
  void t;
}
