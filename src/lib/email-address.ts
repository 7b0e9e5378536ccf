// The one e-mail rule of every entry point (channel checkout, portal checkout, reservations, back-
// office accounts from the admin API, the dashboard and the CLI): a shape check, not RFC 5322 in
// full; the address is proven by the mail that reaches it.

/** RFC 5321 4.5.3.1.3: a path is at most 256 octets with its angle brackets, so 254 for the address. */
export const EMAIL_MAX_LENGTH = 254;

/** Something, "@", something with a dot; no spaces. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$';
const EMAIL_SHAPE = new RegExp(EMAIL_PATTERN);

// The rule as a schema is EmailAddress (src/http/schemas.ts): this module stays free of TypeBox, so
// that the configuration, which checks its addresses with emailProblem, loads without it.

/** The rule as a check: null for an e-mail address, otherwise what is wrong with it. */
export function emailProblem(email: string): string | null {
  if (email.length > EMAIL_MAX_LENGTH) return `must have at most ${EMAIL_MAX_LENGTH} characters`;
  return EMAIL_SHAPE.test(email) ? null : 'must be an e-mail address';
}
