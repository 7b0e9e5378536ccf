import type { Plan } from './plan/types.js';

// The designer's two calls, to the dashboard (same session cookie, the page's CSRF token):
// GET the venue's newest layout, POST a new version.

export interface Boot {
  venueId: number;
  venueName: string;
  planUrl: string;
  csrf: string;
}

export function readBoot(el: HTMLElement): Boot {
  return { venueId: Number(el.dataset.venueId), venueName: el.dataset.venueName ?? '', planUrl: el.dataset.planUrl ?? '', csrf: el.dataset.csrf ?? '' };
}

export interface Loaded {
  version: number | null;
  plan: Plan;
}

export interface Failure {
  status: number;
  message: string;
  code?: string;
  errors?: Record<string, string[]>;
  data?: { seats?: { session_id: number; sector: string; row: string; number: string; status: string }[]; zones?: { session_id: number; sector: string; taken: number; capacity: number }[] };
}

async function envelope<T>(res: Response): Promise<{ ok: true; data: T } | { ok: false; failure: Failure }> {
  const body = (await res.json().catch(() => null)) as { success?: boolean; data?: T; message?: string; code?: string; errors?: Record<string, string[]> } | null;
  if (res.ok && body?.success) return { ok: true, data: body.data as T };
  if (!body || res.redirected) return { ok: false, failure: { status: res.status, message: res.redirected ? 'Your session has ended: sign in again in another tab, then save.' : `The server answered ${res.status}` } };
  return { ok: false, failure: { status: res.status, message: body.message ?? 'Not saved', code: body.code, errors: body.errors, data: body.data as Failure['data'] } };
}

export async function loadPlan(boot: Boot): Promise<Loaded> {
  const res = await fetch(boot.planUrl, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  const out = await envelope<Loaded>(res);
  if (!out.ok) throw new Error(out.failure.message);
  return out.data;
}

export async function savePlan(boot: Boot, plan: Plan) {
  const res = await fetch(boot.planUrl, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ _csrf: boot.csrf, plan }),
  });
  return envelope<{ version: number; seats: number; capacity: number; sessions_moved: number[] }>(res);
}
