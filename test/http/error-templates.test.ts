import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localiseError } from '../../src/http/error-texts.js';
import { AppError, ERRORS, TEMPLATE_KEYS, type AppErrorArgs, type ParamsOf, type TemplateKey } from '../../src/http/errors.js';

// Issue 26: an error with values is built from its code's template (errors.ts), in English and in
// Spanish, instead of the Spanish being parsed back out of the English sentence. SPEC and
// DECISIONS bind the English messages, so each row gives the English text the call site wrote
// before templates (its template literal with the sample values) and the Spanish the old regex
// path (error-texts.ts ES_NAMED, else the code's general text) made of that English.

type Row = { [K in TemplateKey]: [key: K, params: ParamsOf<K>, en: string, es: string] }[TemplateKey];

const ROWS: Row[] = [
  ['bad_request.not_json', { file: 'venue.json', reason: 'Unexpected token } in JSON at position 3' }, 'venue.json is not valid JSON: Unexpected token } in JSON at position 3', 'La petición no es válida.'],
  ['bad_request.unreadable_json', { file: 'layout.json', reason: 'Unexpected end of JSON input' }, 'Cannot read layout.json as JSON: Unexpected end of JSON input', 'La petición no es válida.'],
  ['forbidden.demo_data', { env: 'production' }, 'demo:load needs DEMO_DATA=true when APP_ENV=production (the demo widget keys are public)', 'No tienes permiso para hacer esto.'],
  ['queue_pass_required', { session: 7 }, 'Session 7 has a waiting room: send the Queue-Pass header of an admitted buyer', 'Esta sesión tiene cola virtual: espera tu turno en la cola antes de elegir entradas.'],
  ['queue_challenge_failed', { failure: 'the solution is not valid' }, 'The proof-of-work challenge was not solved: the solution is not valid', 'No se ha podido comprobar tu navegador. Vuelve a intentarlo.'],
  ['not_found.thing', { what: 'Sales channel' }, 'Sales channel not found', 'No se ha encontrado lo que buscas.'],
  ['not_found.seat', { seat: 123 }, 'Seat 123 not found', 'No se ha encontrado lo que buscas.'],
  ['not_found.sector', { sector: 4 }, 'Sector 4 not found', 'No se ha encontrado lo que buscas.'],
  ['not_found.item', { item: 99 }, 'Item 99 not found', 'No se ha encontrado lo que buscas.'],
  ['not_found.session', { session: 12 }, 'Session 12 not found', 'No se ha encontrado lo que buscas.'],
  ['not_found.order', { reference: 'TQ-7K2M9P' }, 'No order TQ-7K2M9P', 'No se ha encontrado lo que buscas.'],
  ['not_found.sales_channel', { slug: 'demo-c' }, 'Sales channel "demo-c" not found', 'No se ha encontrado lo que buscas.'],
  ['not_found.voucher_not_applied', { code: 'SUMMER10' }, 'Voucher SUMMER10 is not applied to this order', 'No se ha encontrado lo que buscas.'],
  ['not_found.key_or_revoked', { key: 'Widget' }, 'Widget key not found or already revoked', 'No se ha encontrado lo que buscas.'],
  ['not_found.payment_provider', { provider: 'redsys' }, 'Payment provider redsys is not enabled', 'No se ha encontrado lo que buscas.'],
  ['not_found.file', { file: 'events.json', reason: 'ENOENT' }, 'Cannot read events.json: ENOENT', 'No se ha encontrado lo que buscas.'],
  ['conflict.account_email', { email: 'ana@example.com' }, 'An account with e-mail ana@example.com already exists', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.account_has_password', { email: 'ana@example.com' }, 'ana@example.com has set a password already: there is nothing to accept', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.account_disabled', { email: 'ana@example.com' }, 'ana@example.com is disabled: enable it first', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.nothing_to_send', { reference: 'TQ-7K2M9P', type: 'sale', status: 'cancelled' }, 'Order TQ-7K2M9P has no tickets to send (sale, cancelled)', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.no_valid_tickets', { reference: 'TQ-7K2M9P' }, 'Order TQ-7K2M9P has no valid tickets', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.no_buyer_email', { reference: 'TQ-7K2M9P' }, 'Order TQ-7K2M9P has no buyer e-mail address', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.offered_twice', { entry: 31 }, 'waiting-list entry 31 was offered seats twice', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.voucher_code_taken', { code: 'SUMMER10' }, 'A voucher with code SUMMER10 already exists', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.channel_slug_taken', { slug: 'demo-c' }, 'A sales channel with slug "demo-c" already exists', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.key_revoked', { key: 'server key' }, 'This server key is already revoked', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.nothing_captured', { payment: 5 }, 'Payment 5 has captured no money to refund', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['conflict.refund_exceeds', { payment: 5 }, 'The refund exceeds what is left of payment 5', 'No se ha podido completar la operación. Inténtalo de nuevo.'],
  ['seat_unavailable', { sector: 'Platea', row: '3', number: '12' }, 'Seat Platea, row 3, number 12 is not available', 'El asiento Platea, fila 3, número 12 ya no está disponible. Elige otro.'],
  ['seat_unavailable.id', { seat: 123 }, 'Seat 123 is not available', 'Ese asiento ya no está disponible. Elige otro.'],
  ['zone_capacity_exceeded', { zone: 'Pista', quantity: 6 }, 'Not enough free places in Pista for 6 tickets', 'No quedan 6 plazas libres en Pista.'],
  ['no_seats_together.accessible', { accessible: 1, companions: 2 }, 'No 1 free wheelchair places with 2 companion seats beside them', 'No quedan tantas butacas libres juntas.'],
  ['no_seats_together.together', { quantity: 4 }, 'No 4 free seats next to each other', 'No quedan tantas butacas libres juntas.'],
  ['no_seats_together.any', { quantity: 4 }, 'Fewer than 4 seats are free', 'No quedan tantas butacas libres juntas.'],
  ['voucher_exhausted', { code: 'SUMMER10' }, 'Voucher code SUMMER10 has been used up', 'El código de descuento SUMMER10 ya se ha agotado.'],
  [
    'voucher_withdrawn',
    { code: 'SUMMER10', total: '45.00' },
    'Voucher code SUMMER10 was withdrawn by the organiser and removed from the order; the new total is 45.00',
    'El organizador ha retirado el código de descuento SUMMER10 y lo hemos quitado de tu pedido; el nuevo total es 45.00.',
  ],
  ['order_already_refunded.order', { reference: 'TQ-7K2M9P' }, 'Order TQ-7K2M9P is already refunded', 'Este pedido ya se ha devuelto.'],
  ['order_already_refunded.session', { reference: 'TQ-7K2M9P', session: 12 }, 'Order TQ-7K2M9P is already refunded for session 12', 'Este pedido ya se ha devuelto.'],
  ['ticket_already_refunded', { tickets: '41, 42', reference: 'TQ-7K2M9P' }, 'Ticket 41, 42 of order TQ-7K2M9P is already refunded', 'Esa entrada ya se ha devuelto.'],
  ['ticket_used', { tickets: '41' }, 'Ticket 41 has been checked in; send allow_used: true to refund it anyway', 'Esa entrada ya se ha usado para entrar.'],
  ['not_on_sale', { session: 12 }, 'Session 12 is not on sale', 'Las entradas de esta sesión no están a la venta en este momento.'],
  [
    'rate_in_use',
    { rate: 'General', uses: '2 sold tickets; 1 ticket held in carts' },
    'Rate "General" cannot be deleted: 2 sold tickets; 1 ticket held in carts. Change its price or name instead.',
    'La tarifa tiene entradas vendidas o reservadas, o vales o listas de espera que la usan: no se puede borrar.',
  ],
  ['seats_available', { available: 3 }, '3 seats are available: buy them instead of joining the waiting list', 'Todavía quedan entradas libres: cómpralas ya, sin lista de espera.'],
  ['not_admitted_yet', { number: 250 }, 'Number 250 is not admitted yet', 'Todavía no es tu turno. Te avisaremos cuando lo sea.'],
  ['queue_closed', { session: 12 }, 'Session 12 has no waiting room', 'La cola de esta sesión no está abierta.'],
  ['voucher_invalid', { code: 'NOPE' }, 'Voucher code NOPE is not valid', 'El código de descuento NOPE no existe.'],
  ['voucher_expired', { code: 'SUMMER10' }, 'Voucher code SUMMER10 has expired', 'El código de descuento SUMMER10 ha caducado.'],
  ['voucher_not_yet_valid', { code: 'SUMMER10' }, 'Voucher code SUMMER10 is not valid yet', 'El código de descuento SUMMER10 todavía no es válido.'],
  ['voucher_not_applicable', { code: 'SUMMER10' }, 'Voucher code SUMMER10 does not apply to any item of this order', 'El código de descuento SUMMER10 no se aplica a ninguna entrada de tu carrito.'],
  ['hold_limit_reached.items_per_order', { limit: 50 }, 'An order holds at most 50 items', 'Has alcanzado el máximo de entradas que puedes reservar a la vez.'],
  [
    'hold_limit_reached.live_orders',
    { limit: 3 },
    'A buyer may hold at most 3 live carts at once; complete or cancel one first',
    'Has alcanzado el máximo de entradas que puedes reservar a la vez.',
  ],
  ['hold_limit_reached.session_tickets', { session: 12, limit: 6 }, 'Session 12 allows at most 6 tickets per buyer', 'Has alcanzado el máximo de entradas que puedes reservar a la vez.'],
  ['rate_limited', { limit: 'Too many cart changes', seconds: 3 }, 'Too many cart changes; retry in 3 s', 'Demasiadas peticiones. Espera un momento y vuelve a intentarlo.'],
  ['payment_provider_refused', { reason: 'card_declined' }, 'The payment provider refused the refund: card_declined', 'El proveedor de pago ha rechazado la devolución.'],
];

const make = (row: Row) => new AppError(...([row[0], row[1]] as AppErrorArgs));

describe('error templates', () => {
  it('every template has a row, and every row a template', () => {
    expect(ROWS.map((r) => r[0]).sort()).toEqual([...TEMPLATE_KEYS].sort());
  });

  it.each(ROWS)('%s: the English message is the one the call site wrote before', (key, _params, en, _es) => {
    const err = make(ROWS.find((r) => r[0] === key)!);
    expect(err.message).toBe(en);
    expect(err.code).toBe(key.split('.')[0]);
    expect(err.status).toBe(ERRORS[err.code].status);
  });

  it.each(ROWS)('%s: the Spanish message is the one the regexes made of the English', (key, _params, en, es) => {
    const err = make(ROWS.find((r) => r[0] === key)!);
    expect(err.spanish).toBe(es);
    // As the error handler answers it: Spanish when asked, the English untouched otherwise.
    expect(localiseError(err.code, err.message, undefined, 'es', err.spanish).message).toBe(es);
    expect(localiseError(err.code, err.message, undefined, 'en', err.spanish).message).toBe(en);
    expect(localiseError(err.code, err.message, undefined, null, err.spanish).message).toBe(en);
  });

  it('a fixed message keeps its English and gets its code’s Spanish; fields and status pass through', () => {
    const err = new AppError('conflict', 'The order changed meanwhile; try again', { order: ['changed'] }, 418);
    expect([err.code, err.status, err.message, err.spanish, err.fields]).toEqual([
      'conflict',
      418,
      'The order changed meanwhile; try again',
      ERRORS.conflict.es,
      { order: ['changed'] },
    ]);
    const voucher = new AppError('voucher_invalid', { code: 'NOPE' }, { code: ['unknown voucher code'] });
    expect(voucher.fields).toEqual({ code: ['unknown voucher code'] });
    expect(localiseError(voucher.code, voucher.message, voucher.fields, 'es', voucher.spanish).fields).toEqual({ code: ['El código no existe.'] });
  });

  it('a key without a template is refused at once, not answered with "undefined"', () => {
    expect(() => new AppError(...(['not_found.nothing', {}] as unknown as AppErrorArgs))).toThrow(/No error template not_found.nothing/);
  });
});

/** Every .ts file under `dir`. */
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') || path.endsWith('.tsx') ? [path] : [];
  });

describe('no message with values outside the templates', () => {
  it('no `new AppError(code, `...${value}...`)` in src', () => {
    const offenders = sources('src').flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      // The message argument of each AppError, up to its closing backtick: a template literal
      // with a substitution is a message with values, whose Spanish would be lost.
      return [...text.matchAll(/new AppError\(\s*'[a-z_.]+',\s*`[^`]*\$\{/g)].map((m) => `${file}: ${m[0].slice(0, 60)}`);
    });
    // rate-limits.ts is being rebuilt by the route-policy work (issue 26 item 3); its one message
    // moves to the `rate_limited` template when that lands.
    expect(offenders.filter((o) => !o.startsWith(join('src', 'http', 'rate-limits.ts')))).toEqual([]);
  });
});
