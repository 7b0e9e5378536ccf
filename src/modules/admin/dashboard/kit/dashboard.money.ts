import { formatAmount } from '../../../../../ui/format.js';

/**
 * An amount as the dashboard shows it: the UI kit's money formatter (ui/format.ts), the one of the
 * portal, the widget and the e-mails, in the dashboard's English: "€63.00", "-€3.00". Amounts are
 * those of the admin API's JSON, in currency units (63 = €63.00).
 */
export const money = (amount: number, currency: string): string => formatAmount(amount, currency, 'en');
