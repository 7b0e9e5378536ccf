import type { FieldErrors } from './errors.js';

/** The success envelope of DECISIONS D33. */
export interface Envelope<T> {
  status: number;
  success: true;
  data: T;
  message: string;
}

export function ok<T>(data: T, message = 'OK', status = 200): Envelope<T> {
  return { status, success: true, data, message };
}

/** The error envelope of DECISIONS D4. */
export interface ErrorEnvelope {
  status: number;
  success: false;
  message: string;
  code: string;
  errors?: FieldErrors;
  /** Facts some codes carry: voucher_withdrawn the order with its new total (D75), not_on_sale the sales window (D59). */
  data?: unknown;
}
