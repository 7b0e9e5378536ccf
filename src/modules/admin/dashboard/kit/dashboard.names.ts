/**
 * An event as every dashboard page names it: in the dashboard's language (English) when the event
 * has that name, else Spanish, else its first name, else its number.
 */
export const eventName = (e: { names: Record<string, string>; id: number }): string => e.names.en ?? e.names.es ?? Object.values(e.names)[0] ?? `#${e.id}`;
