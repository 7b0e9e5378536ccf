import type { Reason } from './decide.js';
import type { Problem } from './scanner.js';
import type { ScanResult } from './types.js';

// The scanner's texts in Spanish and English: the browser's language unless the user picked one.

export const LANGS = ['es', 'en'] as const;
export type Lang = (typeof LANGS)[number];

const es = {
  title: 'Control de acceso',
  setupTitle: 'Configurar este dispositivo',
  setupHelp: 'Escanea el código QR del dispositivo que se muestra en el panel, o abre su enlace en este teléfono.',
  setupScan: 'Escanear código de configuración',
  setupField: 'Enlace o código de configuración',
  setupSubmit: 'Configurar',
  gate: 'Puerta',
  list: 'Lista',
  online: 'En línea',
  offline: 'Sin conexión',
  syncing: 'Sincronizando…',
  syncNow: 'Sincronizar',
  lastSync: 'Última sincronización',
  never: 'nunca',
  tickets: 'entradas en la lista',
  pending: 'escaneos por subir',
  entriesHere: 'Entradas en esta puerta',
  checkedIn: 'Dentro / vendidas',
  perGate: 'Por puerta',
  camera: 'Cámara',
  cameraStop: 'Parar cámara',
  cameraError: 'No se puede usar la cámara',
  codeField: 'Código de la entrada',
  check: 'Comprobar',
  entry: 'Entrada',
  exit: 'Salida',
  conflicts: 'Conflictos al sincronizar',
  conflictLine: 'aquí {local}, servidor {server}',
  tapToContinue: 'Toca para seguir',
  firstScan: 'Primer escaneo',
  offlineAnswer: 'Comprobado sin conexión',
  language: 'Idioma',
  newSetup: 'Configurar de nuevo',
  row: 'Fila',
  seat: 'Asiento',
  zone: 'Zona',
  rate: 'Tarifa',
  buyer: 'Titular',
  result: {
    valid: 'VÁLIDA',
    already_used: 'YA USADA',
    invalid: 'NO VÁLIDA',
    wrong_list: 'OTRA LISTA',
    refunded: 'DEVUELTA',
    not_yet_valid: 'AÚN NO VÁLIDA',
    exited: 'SALIDA',
  } satisfies Record<ScanResult, string>,
  reason: {
    entry: 'Puede entrar.',
    reentry: 'Vuelve a entrar.',
    exit: 'Salida registrada.',
    used: 'Esta entrada ya se usó.',
    unreadable: 'No es un código de entrada.',
    forged: 'Firma falsa o código alterado.',
    unknown_key: 'Firmada con una clave desconocida.',
    unknown_ticket: 'La entrada no está en la lista descargada.',
    other_session: 'La entrada es de otra sesión.',
    other_sector: 'La entrada es de otro sector.',
    revoked: 'La entrada fue devuelta o anulada.',
    reissued: 'Código antiguo: la entrada se volvió a emitir.',
    no_exit: 'Esta lista no registra salidas.',
    too_early: 'Aún no se abre el acceso a esta sesión.',
    server: 'Respuesta del servidor.',
  } satisfies Record<Reason, string>,
  problem: {
    setup_failed: 'No se pudo configurar: enlace no válido o sin conexión.',
    device_revoked: 'Este dispositivo fue revocado. Configúralo de nuevo.',
    sync_failed: 'La sincronización falló; se reintentará.',
    server_error: 'Error del servidor; se comprobó en el dispositivo.',
  } satisfies Record<Problem, string>,
};

type Texts = typeof es;

const en: Texts = {
  title: 'Check-in',
  setupTitle: 'Set up this device',
  setupHelp: 'Scan the device QR code shown in the dashboard, or open its link on this phone.',
  setupScan: 'Scan set-up code',
  setupField: 'Set-up link or code',
  setupSubmit: 'Set up',
  gate: 'Gate',
  list: 'List',
  online: 'Online',
  offline: 'Offline',
  syncing: 'Syncing…',
  syncNow: 'Sync now',
  lastSync: 'Last sync',
  never: 'never',
  tickets: 'tickets in the list',
  pending: 'scans to upload',
  entriesHere: 'Entries at this gate',
  checkedIn: 'Checked in / sold',
  perGate: 'Per gate',
  camera: 'Camera',
  cameraStop: 'Stop camera',
  cameraError: 'The camera cannot be used',
  codeField: 'Ticket code',
  check: 'Check',
  entry: 'Entry',
  exit: 'Exit',
  conflicts: 'Conflicts found at sync',
  conflictLine: 'here {local}, server {server}',
  tapToContinue: 'Tap to continue',
  firstScan: 'First scan',
  offlineAnswer: 'Checked offline',
  language: 'Language',
  newSetup: 'Set up again',
  row: 'Row',
  seat: 'Seat',
  zone: 'Zone',
  rate: 'Rate',
  buyer: 'Holder',
  result: {
    valid: 'VALID',
    already_used: 'ALREADY USED',
    invalid: 'INVALID',
    wrong_list: 'WRONG LIST',
    refunded: 'REFUNDED',
    not_yet_valid: 'NOT YET VALID',
    exited: 'EXIT',
  },
  reason: {
    entry: 'Let in.',
    reentry: 'Re-entry.',
    exit: 'Exit recorded.',
    used: 'This ticket has been used.',
    unreadable: 'Not a ticket code.',
    forged: 'Forged signature or altered code.',
    unknown_key: 'Signed with an unknown key.',
    unknown_ticket: 'The ticket is not in the downloaded list.',
    other_session: 'The ticket is for another session.',
    other_sector: 'The ticket is for another sector.',
    revoked: 'The ticket was refunded or voided.',
    reissued: 'Old code: the ticket was reissued.',
    no_exit: 'This list does not record exits.',
    too_early: 'Admission to this session has not opened yet.',
    server: 'Answer from the server.',
  },
  problem: {
    setup_failed: 'Set-up failed: invalid link or no network.',
    device_revoked: 'This device was revoked. Set it up again.',
    sync_failed: 'Sync failed; it will retry.',
    server_error: 'Server error; checked on the device.',
  },
};

export const TEXTS: Record<Lang, Texts> = { es, en };

/** The first of the browser's languages that the scanner speaks, else Spanish (the service's default). */
export function browserLang(languages: readonly string[]): Lang {
  for (const l of languages) {
    const base = l.toLowerCase().split('-')[0];
    if (base === 'es' || base === 'en') return base;
  }
  return 'es';
}
