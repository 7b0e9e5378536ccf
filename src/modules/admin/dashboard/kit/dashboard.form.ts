// Reading urlencoded dashboard forms into the plain inputs of the services (which validate them).

export type Form = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Trimmed text; '' when absent. */
export const text = (form: Form, name: string): string => (first(form[name]) ?? '').trim();
/** Text, or undefined when empty (field left as is). */
export const optional = (form: Form, name: string): string | undefined => text(form, name) || undefined;
/** Text, or null when empty (field cleared). */
export const nullable = (form: Form, name: string): string | null => text(form, name) || null;

/** A number; NaN for garbage so that the service answers 422. Undefined when empty. */
export function number(form: Form, name: string): number | undefined {
  const value = text(form, name);
  if (value === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
}

export const nullableNumber = (form: Form, name: string): number | null => number(form, name) ?? null;

/** Every checked id of a checkbox group. */
export function ids(form: Form, name: string): number[] {
  const raw = form[name];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return list.filter((v) => /^\d+$/.test(v)).map(Number);
}
