import { buyerTexts, fillText } from '../../ui/texts.js';
import { formatAmount, localeOf, pickLang } from '../../ui/format.js';
/** Texts of the widget in Spanish and English; the language comes from `lang` (fallback: es). */
const es = {
  ...buyerTexts.es,
  loading: 'Cargando…',
  title: 'Elige tus entradas',
  map: 'Mapa de asientos',
  mapHelp: 'Usa las flechas para moverte entre asientos y Intro o Espacio para seleccionar.',
  zoomIn: 'Acercar',
  zoomOut: 'Alejar',
  zoomReset: 'Ver todo el mapa',
  row: 'fila',
  seat: 'asiento',
  available: 'libre',
  held: 'reservado por otra persona',
  sold: 'vendido',
  blocked: 'no disponible',
  mine: 'en tu carrito',
  legend: 'Leyenda',
  placesLeft: '{n} plazas libres',
  decrease: 'Quitar una',
  increase: 'Añadir una',
  emptyCart: 'Tu carrito está vacío.',
  emptyCartPickSeats: 'Tu carrito está vacío. Elige asientos en el mapa.',
  fee: 'gastos',
  discount: 'descuento',
  voucher: 'Código promocional',
  removeVoucher: 'Quitar código {code}',
  voucherApplied: 'Código {code} aplicado',
  checkout: 'Ir a pagar',
  seatTaken: 'Ese asiento lo acaba de coger otra persona. Elige otro.',
  zoneFull: 'No quedan tantas plazas en esa zona.',
  zoneNeedsSeat: 'Elige primero un asiento en el mapa; después puedes añadir plazas de esta zona.',
  expired: 'Tu reserva ha caducado y los asientos se han liberado.',
  network: 'No hay conexión con el servicio. Inténtalo de nuevo.',
  retry: 'Reintentar',
  failed: 'No se pudo completar la acción: {message}',
  tooMany: 'Has alcanzado el máximo de entradas que puedes reservar a la vez.',
  notWidget: 'Este canal no permite el widget.',
  sessionMissing: 'Esta sesión no está a la venta.',
  auth: 'No se pudo autenticar el canal de venta.',
  completed: '¡Gracias! Tu compra está completada.',
  seatLabel: '{sector}, fila {row}, asiento {number}',
  itemZone: '{sector}',
  sectors: 'Sectores: pulsa uno para verlo de cerca',
  // Starts with the button's visible text (WCAG 2.5.3, label in name).
  zoomSector: '{sector} {n} libres: ver de cerca',
  seatsInCart: '{n} en el carrito',
  bestSeats: 'Las {n} mejores butacas',
  noSeatsTogether: 'No quedan tantas butacas libres juntas. Prueba con menos o elige en el mapa.',
  subtotal: 'Entradas',
  discounts: 'Descuentos',
  wlSoldOut: 'Agotado. Apúntate a la lista de espera: si se liberan entradas, te las guardamos y te avisamos por correo.',
  wlSector: 'Sector o zona',
  wlAny: 'Cualquiera',
  wlJoin: 'Apuntarme a la lista de espera',
  wlJoined: 'Estás en la lista de espera: eres el número {position}. Te escribiremos cuando haya entradas para ti.',
  wlJoinedNoPosition: 'Estás en la lista de espera. Te escribiremos cuando haya entradas para ti.',
  wlAlready: 'Este correo ya está en la lista de espera de esta sesión.',
  wlSeatsAvailable: 'Aún quedan {n} entradas libres: puedes comprarlas ahora.',
  wlRateLimited: 'Demasiados intentos seguidos. Espera un minuto y vuelve a probar.',
  wlInvalid: 'Revisa los campos marcados.',
  passes: 'Tus entradas en el móvil',
  ticketN: 'Entrada {n}',
} as const;

export type MessageKey = keyof typeof es;

const en: Record<MessageKey, string> = {
  ...buyerTexts.en,
  loading: 'Loading…',
  title: 'Choose your tickets',
  map: 'Seat map',
  mapHelp: 'Use the arrow keys to move between seats and Enter or Space to select.',
  zoomIn: 'Zoom in',
  zoomOut: 'Zoom out',
  zoomReset: 'Show the whole map',
  row: 'row',
  seat: 'seat',
  available: 'available',
  held: 'held by someone else',
  sold: 'sold',
  blocked: 'not available',
  mine: 'in your cart',
  legend: 'Legend',
  placesLeft: '{n} places left',
  decrease: 'One less',
  increase: 'One more',
  emptyCart: 'Your cart is empty.',
  emptyCartPickSeats: 'Your cart is empty. Pick seats on the map.',
  fee: 'fees',
  discount: 'discount',
  voucher: 'Promo code',
  removeVoucher: 'Remove code {code}',
  voucherApplied: 'Code {code} applied',
  checkout: 'Checkout',
  seatTaken: 'Someone else just took that seat. Please pick another one.',
  zoneFull: 'There are not that many places left in that area.',
  zoneNeedsSeat: 'Pick a seat on the map first; then you can add places in this area.',
  expired: 'Your hold expired and the seats were released.',
  network: 'Cannot reach the ticketing service. Please try again.',
  retry: 'Try again',
  failed: 'That did not work: {message}',
  tooMany: 'You reached the maximum number of tickets you can hold at once.',
  notWidget: 'This sales channel cannot use the widget.',
  sessionMissing: 'This session is not on sale.',
  auth: 'The sales channel could not be authenticated.',
  completed: 'Thank you! Your purchase is complete.',
  seatLabel: '{sector}, row {row}, seat {number}',
  itemZone: '{sector}',
  sectors: 'Sectors: press one to see it close up',
  zoomSector: '{sector} {n} free: close up',
  seatsInCart: '{n} in the cart',
  bestSeats: '{n} best seats',
  noSeatsTogether: 'Not that many free seats side by side. Try fewer, or pick on the map.',
  subtotal: 'Tickets',
  discounts: 'Discounts',
  wlSoldOut: 'Sold out. Join the waiting list: if tickets come free, we hold them for you and let you know by e-mail.',
  wlSector: 'Sector or area',
  wlAny: 'Any',
  wlJoin: 'Join the waiting list',
  wlJoined: "You're on the waiting list: you are number {position}. We'll e-mail you when there are tickets for you.",
  wlJoinedNoPosition: "You're on the waiting list. We'll e-mail you when there are tickets for you.",
  wlAlready: 'This e-mail address is already on the waiting list for this session.',
  wlSeatsAvailable: 'There are still {n} tickets left: you can buy them now.',
  wlRateLimited: 'Too many attempts in a row. Wait a minute and try again.',
  wlInvalid: 'Please check the marked fields.',
  passes: 'Your tickets on your phone',
  ticketN: 'Ticket {n}',
};

export type { Lang } from '../../ui/format.js';
import type { Lang } from '../../ui/format.js';
const widgetTexts: Record<Lang, Record<MessageKey, string>> = { es, en };

export { pickLang };

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function translator(lang: Lang): Translate {
  const table = widgetTexts[lang];
  return (key, params) => fillText(table[key], params);
}

// The first Intl formatter of a page is slow to build (tens of milliseconds: the locale data is
// loaded), later ones are cheap. Formatters are built on first use and kept, one per language and
// currency; `prepareFormats` builds them ahead, while the widget waits for the network.
// Money and the locale map are the UI kit's (ui/format.ts), the portal's too.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const locale = localeOf;

export function money(lang: Lang, currency: string): (amount: number) => string {
  return (amount) => formatAmount(amount, currency, lang);
}

/**
 * The session's date and time in the widget's language and in `timeZone`, the deployment's (the
 * config's `timezone`): the time printed on the ticket, not the browser's clock. Without one (an
 * older service) the browser's zone is all there is.
 */
export function dateTime(lang: Lang, timeZone?: string): (iso: string) => string {
  const key = `${lang}|${timeZone ?? ''}`;
  return (iso) => {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return iso;
    let fmt = dateFormats.get(key);
    if (!fmt) {
      try {
        fmt = new Intl.DateTimeFormat(locale(lang), { dateStyle: 'full', timeStyle: 'short', timeZone });
      } catch {
        fmt = new Intl.DateTimeFormat(locale(lang), { dateStyle: 'full', timeStyle: 'short' });
      }
      dateFormats.set(key, fmt);
    }
    return fmt.format(d);
  };
}

export function prepareFormats(lang: Lang, currency: string | undefined, timeZone?: string): void {
  money(lang, currency ?? 'EUR')(0);
  dateTime(lang, timeZone)('2000-01-01T00:00:00Z');
}
