import { toAmount } from '../../../lib/money.js';
import type { ChannelRecord } from '../../../db/channel-record.js';
import type { StoreEvent, StoreSession } from './storefront.repo.js';

// What search engines and link previews read of an event page (D72): schema.org Event data, one
// per session on sale, and the description of the page. https://schema.org/Event

interface Where {
  channel: ChannelRecord;
  lang: string;
  /** PUBLIC_BASE_URL, without a trailing slash. */
  baseUrl: string;
  currency: string;
}

const sessionUrl = (w: Where, eventId: number, sessionId: number) => `${w.baseUrl}/${w.channel.slug}/${w.lang}/events/${eventId}/sessions/${sessionId}`;

/** The schema.org Event of one session: when, where, and its all-in price from (D71). */
export function sessionJsonLd(w: Where, event: StoreEvent, session: StoreSession): Record<string, unknown> {
  const url = sessionUrl(w, event.id, session.id);
  return {
    '@context': 'https://schema.org',
    '@type': 'Event',
    name: event.name,
    ...(event.description ? { description: event.description } : {}),
    ...(event.image_url ? { image: [event.image_url] } : {}),
    startDate: session.start_datetime.toISOString(),
    eventStatus: 'https://schema.org/EventScheduled',
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    inLanguage: w.lang,
    url,
    location: {
      '@type': 'Place',
      name: event.venue,
      ...(event.city ? { address: { '@type': 'PostalAddress', addressLocality: event.city } } : {}),
    },
    ...(session.from_price !== null
      ? {
          offers: {
            '@type': 'Offer',
            url,
            price: toAmount(session.from_price).toFixed(2),
            priceCurrency: w.currency,
            availability: session.available > 0 ? 'https://schema.org/InStock' : 'https://schema.org/SoldOut',
          },
        }
      : {}),
  };
}

/** The event page's description: the event's own text, else where and when. */
export function eventDescription(event: StoreEvent, when: string | null): string {
  if (event.description?.trim()) return event.description.trim();
  return [event.name, event.venue, event.city, when].filter(Boolean).join(' · ');
}

export const eventPageUrl = (w: Where, eventId: number) => `${w.baseUrl}/${w.channel.slug}/${w.lang}/events/${eventId}`;
export { sessionUrl };
