import { describe, expect } from 'vitest';
import { adminWithOrganiserB } from '../admin/admin-helpers.js';
import { appTest, bearer, tokenFor } from '../helpers.js';

// D59's fourth `sale_state`: `sold_out`, a session on sale with no place free (every seat and every
// zone place held or sold), in the event list, the session list, the session detail and the live
// map alike; it is `on_sale` again as soon as a place comes free. The session of organiser B's
// small catalogue (test/admin/admin-helpers.ts: 10 seats and a zone of 5) is filled by one cart.
const { it } = appTest();
const SLUG = 'channel-b';

describe('sale_state sold_out (D59)', () => {
  it('every catalogue read says sold_out while nothing is free, on_sale once a place is released', async ({ t }) => {
    await adminWithOrganiserB(t.ctx, t.app);
    const token = await tokenFor(t.app, SLUG, 'wk_channel_b_fixed', 'sold-out-buyer');
    const get = async (path: string) => {
      const res = await t.app.inject({ url: `/api/sales-channel/v1/${SLUG}/en${path}`, headers: bearer(token) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data;
    };
    const [event] = await get('/events');
    const sessionId = event.sessions[0].id as number;
    const base = `/events/${event.id}/sessions/${sessionId}`;
    const states = async () => ({
      list: (await get('/events'))[0].sessions[0].sale_state,
      sessions: (await get(`/events/${event.id}/sessions`))[0].sale_state,
      detail: (await get(base)).session.sale_state,
      availability: (await get(`${base}/availability`)).sale_state,
    });
    const all = (state: string) => ({ list: state, sessions: state, detail: state, availability: state });
    expect(await states()).toEqual(all('on_sale'));

    const detail = await get(base);
    const seats = detail.elements.seats as { id: number; rates: { id: number }[] }[];
    const zone = (detail.elements.sectors as { id: number; numbered: boolean; capacity: number; rates: { id: number }[] }[]).find((s) => !s.numbered)!;
    const orders = `/api/sales-channel/v1/${SLUG}/en/orders`;
    const created = await t.app.inject({ method: 'POST', url: orders, headers: bearer(token), payload: { items: seats.map((s) => ({ session_seat_id: s.id, rate_id: s.rates[0]!.id })) } });
    expect(created.statusCode, created.body).toBe(201);
    const orderToken = created.json().data.order_token as string;
    // Seats all held, zone places still free: on sale.
    expect(await states()).toEqual(all('on_sale'));
    const zoneItems = await t.app.inject({
      method: 'POST',
      url: `${orders}/${orderToken}/items/sector`,
      headers: bearer(token),
      payload: { sector_id: zone.id, rate_id: zone.rates[0]!.id, quantity: zone.capacity },
    });
    expect(zoneItems.statusCode, zoneItems.body).toBeLessThan(300);
    expect(await states()).toEqual(all('sold_out'));

    const cancelled = await t.app.inject({ method: 'DELETE', url: `${orders}/${orderToken}`, headers: bearer(token) });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await states()).toEqual(all('on_sale'));
  });
});
