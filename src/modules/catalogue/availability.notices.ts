import type { FastifyInstance } from 'fastify';
import { notify, type Listener } from '../../db/notifications.js';
import { onInventoryChanged } from '../../lib/inventory-events.js';
import { instanceId, liveMaps } from './availability.service.js';

// The live maps of a fleet (D62): each instance tells the others which sessions' inventory it
// changed, through a database notification (PostgreSQL LISTEN/NOTIFY, as token revocations do, D42),
// and each re-reads those sessions' maps once, whatever the number of buyers watching them.
//
// The notice is sent after the write has committed, from the writers' in-process inventory notices,
// and batched: every session changed within NOTICE_BATCH_MS goes out in one NOTIFY. A NOTIFY inside
// the hold's own transaction would be exact but makes every committing hold queue on PostgreSQL's
// single notification lock, the hot path of an on-sale; a notice lost this way (a crash between the
// commit and the batch) is caught by the maps' age bound (availability.service.ts).

export const INVENTORY_CHANNEL = 'taquilla_inventory';
const NOTICE_BATCH_MS = 25;
/** Session ids per notification: a NOTIFY payload stays far below PostgreSQL's 8000 bytes. */
const IDS_PER_NOTICE = 500;

interface Payload {
  /** The sending instance. */
  o: string;
  /** Session ids. */
  s: number[];
}

function parsePayload(text: string): Payload | null {
  try {
    const v = JSON.parse(text) as Payload;
    return v && typeof v.o === 'string' && Array.isArray(v.s) && v.s.every(Number.isInteger) ? v : null;
  } catch {
    return null;
  }
}

/** Sends this instance's inventory notices to the fleet and hears the fleet's, while the app is up. */
export function shareInventoryNotices(app: FastifyInstance): void {
  let listener: Listener | null = null;
  let stopLocal: (() => void) | null = null;
  let timer: NodeJS.Timeout | null = null;
  const pending = new Set<number>();

  const flush = () => {
    timer = null;
    const ids = [...pending];
    pending.clear();
    const me = instanceId(app.ctx);
    for (let i = 0; i < ids.length; i += IDS_PER_NOTICE) {
      const payload: Payload = { o: me, s: ids.slice(i, i + IDS_PER_NOTICE) };
      notify(app.ctx.db, INVENTORY_CHANNEL, JSON.stringify(payload)).catch((err: Error) =>
        app.log.warn({ err: { message: err.message } }, 'inventory notice not sent; other instances catch up within their maps\' age bound'),
      );
    }
  };

  app.addHook('onReady', async () => {
    const { ctx } = app;
    const maps = liveMaps(ctx);
    const me = instanceId(ctx);
    stopLocal = onInventoryChanged(ctx, (ids) => {
      ids.forEach((id) => pending.add(id));
      if (!timer) {
        timer = setTimeout(flush, NOTICE_BATCH_MS);
        timer.unref();
      }
    });
    listener = await ctx.database.listen(INVENTORY_CHANNEL, {
      onNotification(text) {
        const payload = parsePayload(text);
        if (!payload) return maps.markAllStale();
        if (payload.o !== me) maps.markStale(payload.s);
      },
      // Notices sent while the connection was down are lost: every map is read again.
      onConnected: () => maps.markAllStale(),
      onConnectionLost(err) {
        app.log.warn({ err: { message: err.message } }, 'inventory listener disconnected; reconnecting');
      },
    });
  });
  app.addHook('onClose', async () => {
    stopLocal?.();
    if (timer) clearTimeout(timer);
    await listener?.close();
  });
}
