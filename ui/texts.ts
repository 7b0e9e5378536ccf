// The buyer's texts that the widget and the portal (its pages and its script) show alike: the cart,
// its countdown, the waiting room, the seat picker's words, the waiting list's and the wallet buttons
// (issue 26: one table, not two copies; the ticket e-mail takes the wallet buttons' words too).
// widget/src/i18n.ts and src/modules/portal/pages/portal.texts.ts spread them into their own tables,
// which keep only what differs between the two screens. Placeholders are {name}.
import type { Lang } from './format.js';

const es = {
  rate: 'Tarifa',
  zones: 'Zonas sin numerar',
  quantity: 'Cantidad',
  bestHelp: 'Elegimos por ti las mejores butacas libres juntas.',
  chooseAgain: 'Elegir otras',
  add: 'Añadir',
  cart: 'Tu carrito',
  remove: 'Quitar',
  fees: 'Gastos de gestión',
  total: 'Total',
  expiresIn: 'Tu reserva caduca en',
  expiresSoon: 'Queda menos de un minuto para que caduque tu reserva:',
  queueTitle: 'Sala de espera',
  queueJoin: 'Entrar en la cola',
  queueNotOpen: 'La sala de espera abre a las {time}. La venta empieza en {left}.',
  queuePreOpen: 'La venta empieza en {left}. Entra ya en la cola: al empezar la venta se sortea el orden entre todos los que estén dentro, así que llegar antes no da ventaja.',
  queueInPre: 'Estás en la cola. La venta empieza en {left}; entonces se sortea tu turno.',
  queueDrawing: 'Sorteando el orden de la cola…',
  queueJoinNow: 'La venta ha empezado. Entra en la cola para comprar.',
  queuePosition: 'Tu número: {number}. Personas delante de ti: {ahead}.',
  queueWait: 'Espera estimada: unos {minutes} min. No cierres esta página: guardas tu sitio aunque la recargues.',
  queueSolving: 'Comprobando tu navegador…',
  queueAdmitted: '¡Es tu turno! Elige tus entradas. Tu acceso caduca en {left}.',
  queuePassExpired: 'Tu turno ha caducado. Las entradas que ya estén en tu carrito siguen reservadas hasta que caduque el carrito.',
  queueEnded: 'La sala de espera está cerrada.',
  queueNeeded: 'Esta sesión tiene sala de espera: entra en la cola y espera tu turno para reservar.',
  days: 'd',
  apply: 'Aplicar',
  stage: 'Escenario',
  viewCart: 'Ver carrito',
  inclFees: 'gastos de gestión incluidos: {fee}',
  waitlistTitle: 'Lista de espera',
  email: 'Correo electrónico',
  addToAppleWallet: 'Añadir a Apple Wallet',
  addToGoogleWallet: 'Añadir a Google Wallet',
} as const;

export type BuyerTextKey = keyof typeof es;

const en: Record<BuyerTextKey, string> = {
  rate: 'Rate',
  zones: 'Unnumbered areas',
  quantity: 'Quantity',
  bestHelp: 'We pick the best free seats side by side for you.',
  chooseAgain: 'Choose others',
  add: 'Add',
  cart: 'Your cart',
  remove: 'Remove',
  fees: 'Booking fees',
  total: 'Total',
  expiresIn: 'Your hold expires in',
  expiresSoon: 'Less than a minute left on your hold:',
  queueTitle: 'Waiting room',
  queueJoin: 'Join the queue',
  queueNotOpen: 'The waiting room opens at {time}. Sales open in {left}.',
  queuePreOpen: 'Sales open in {left}. Join the queue now: when sales open, the order of everyone in it is drawn at random, so arriving earlier gives no advantage.',
  queueInPre: 'You are in the queue. Sales open in {left}; your turn is drawn then.',
  queueDrawing: 'Drawing the order of the queue…',
  queueJoinNow: 'Sales are open. Join the queue to buy.',
  queuePosition: 'Your number: {number}. People ahead of you: {ahead}.',
  queueWait: 'Estimated wait: about {minutes} min. Keep this page open: a reload keeps your place.',
  queueSolving: 'Checking your browser…',
  queueAdmitted: 'It is your turn! Choose your tickets. Your access expires in {left}.',
  queuePassExpired: 'Your turn has expired. Tickets already in your cart stay held until the cart expires.',
  queueEnded: 'The waiting room is closed.',
  queueNeeded: 'This session has a waiting room: join the queue and wait for your turn to hold seats.',
  days: 'd',
  apply: 'Apply',
  stage: 'Stage',
  viewCart: 'View cart',
  inclFees: 'incl. {fee} booking fee',
  waitlistTitle: 'Waiting list',
  email: 'E-mail',
  addToAppleWallet: 'Add to Apple Wallet',
  addToGoogleWallet: 'Add to Google Wallet',
};

export const buyerTexts: Record<Lang, Record<BuyerTextKey, string>> = { es, en };

/** A text with its `{name}` placeholders filled (a missing parameter leaves nothing). */
export const fillText = (text: string, params?: Record<string, string | number>): string => text.replace(/\{(\w+)\}/g, (_, name: string) => String(params?.[name] ?? ''));
