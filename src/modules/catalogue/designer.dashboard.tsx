import crypto from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseUnavailable } from '../../http/error-handler.js';
import { AppError, type ErrorCode } from '../../http/errors.js';
import { ok, type ErrorEnvelope } from '../../http/envelope.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import type { Layout } from './layout.schemas.js';
import { createLayoutAs, getLayoutFor, getVenueFor } from './layouts.service.js';
import { actorOf, idParam, pageContext, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import { Page } from '../admin/dashboard/kit/dashboard.page.js';

// The seat-map designer (D65, docs/venues.md) at /admin/venues/{id}/designer: a dashboard page that
// loads the designer's bundle (designer/, built by `npm run build:designer`), which reads the venue's
// newest layout and saves the next version through the same service as the admin API, with the
// session's cookie and CSRF token. A promoter reaches only its organiser's venues (else 404).

/** Where `npm run build:designer` writes the bundle (designer/vite.config.ts). */
const DESIGNER_DIST = path.join(PROJECT_ROOT, 'designer', 'dist');
/** As the admin API's layouts (a 20,000-seat plan is about 3 MB of JSON). */
const LAYOUT_BODY_LIMIT = 16 * 1024 * 1024;

interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

async function loadAssets(): Promise<{ js: Asset; css: Asset } | null> {
  const read = async (name: string, type: string): Promise<Asset> => {
    const body = await readFile(path.join(DESIGNER_DIST, name));
    return { body, type, hash: crypto.createHash('sha256').update(body).digest('hex').slice(0, 16) };
  };
  try {
    return { js: await read('designer.js', 'text/javascript; charset=utf-8'), css: await read('designer.css', 'text/css; charset=utf-8') };
  } catch {
    return null;
  }
}

/** A blank seat map: one category, a canvas size, nothing drawn. */
const emptyPlan = (name: string): Layout => ({ name, size: { width: 1200, height: 800 }, categories: [{ name: 'Standard', color: '#3366cc' }], sectors: [], shapes: [] });

/** The designer's calls answer JSON in the envelopes of D4 and D33, not the dashboard's HTML pages. */
function jsonError(thrown: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const err = databaseUnavailable(thrown, request, reply) ?? thrown;
  let status = 500;
  let code: ErrorCode = 'internal_error';
  let message = 'Internal server error';
  const body: Partial<ErrorEnvelope> = {};
  if (err instanceof AppError) {
    ({ status, code, message } = err);
    if (err.fields) body.errors = err.fields;
    if (err.data !== undefined) body.data = err.data;
  } else if ((err as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    [status, code, message] = [413, 'payload_too_large', 'The request body is too large'];
  } else if ((err as FastifyError).code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (err as FastifyError).code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    [status, code, message] = [400, 'bad_request', 'The request body is not valid JSON'];
  } else if ((err as FastifyError).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    [status, code, message] = [415, 'unsupported_media_type', 'Unsupported content type; send application/json'];
  } else {
    request.log.error({ err }, 'designer error');
  }
  return reply.status(status).type('application/json; charset=utf-8').send({ status, success: false, message, code, ...body });
}

/** Before the dashboard's CSRF check (a preHandler): a JSON `_csrf` that is not text is refused as a missing one. */
async function csrfIsText(request: FastifyRequest) {
  const body = request.body as { _csrf?: unknown } | null;
  const token = body && typeof body === 'object' && !Array.isArray(body) ? body._csrf : undefined;
  if (typeof token !== 'string') throw new AppError('forbidden', 'The form has expired or did not come from this dashboard; reload the page and try again');
}

export default async function designerDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const assets = await loadAssets();

  app.get('/designer/:file', async (request, reply) => {
    const { file } = request.params as { file: string };
    const asset = file === 'designer.js' ? assets?.js : file === 'designer.css' ? assets?.css : undefined;
    if (!asset) throw new AppError('not_found', assets ? 'Not found' : 'The designer is not built; run npm run build:designer');
    // The page asks for ?v=<hash of the content>: a new build is a new address.
    return reply.header('cache-control', 'private, max-age=31536000, immutable').type(asset.type).send(asset.body);
  });

  app.get('/venues/:venueId/designer', async (request, reply) => {
    const pc = pageContext(request, 'venues');
    const venue = await getVenueFor(ctx, pc.actor, idParam(request, 'venueId'));
    return sendPage(
      reply,
      <Page pc={pc} title={`Seat map: ${venue.name}`}>
        {assets ? (
          <>
            <p>
              <a href={`/admin/venues/${venue.id}`}>Back to the venue</a>
            </p>
            <p class="hint">
              Draw the seat map of {venue.name}
              {venue.city ? `, ${venue.city}` : ''}: saving makes its next layout version ({venue.layout_version ? `now version ${venue.layout_version}` : 'none yet'}); upcoming sessions move onto it.
            </p>
            <link rel="stylesheet" href={`/admin/designer/designer.css?v=${assets.css.hash}`} />
            <div id="designer-root" data-venue-id={venue.id} data-venue-name={venue.name} data-plan-url={`/admin/venues/${venue.id}/designer/plan`} data-csrf={pc.csrfToken}>
              <p>Loading the designer…</p>
              <noscript>
                <p class="error">The designer needs JavaScript. Layouts can also be saved as JSON through the admin API (docs/venues.md).</p>
              </noscript>
            </div>
            <script type="module" src={`/admin/designer/designer.js?v=${assets.js.hash}`} />
          </>
        ) : (
          <p class="error" role="alert">
            The designer is not built on this server: run <code>npm run build:designer</code> (part of <code>npm run build</code>).
          </p>
        )}
      </Page>,
    );
  });

  app.get('/venues/:venueId/designer/plan', { errorHandler: jsonError }, async (request) => {
    const actor = actorOf(request);
    const venue = await getVenueFor(ctx, actor, idParam(request, 'venueId'));
    if (!venue.layout_version) return ok({ version: null, plan: emptyPlan(venue.name) });
    const layout = await getLayoutFor(ctx, actor, venue.id, venue.layout_version);
    return ok({ version: layout.version, plan: layout.plan });
  });

  // The body is JSON ({_csrf, plan}); the dashboard's CSRF hook reads `_csrf` from it as from a form.
  app.post('/venues/:venueId/designer/plan', { bodyLimit: LAYOUT_BODY_LIMIT, errorHandler: jsonError, preValidation: csrfIsText }, async (request, reply) => {
    const actor = actorOf(request);
    const venueId = idParam(request, 'venueId');
    const { plan } = (request.body ?? {}) as { plan?: unknown };
    if (plan === null || typeof plan !== 'object' || Array.isArray(plan)) {
      throw new AppError('validation_failed', 'The given data was invalid', { plan: ['must be a Taquilla layout (an object)'] });
    }
    const saved = await createLayoutAs(ctx, actor, venueId, { format: 'taquilla', plan: plan as Record<string, unknown> });
    const layout = plan as Layout;
    let seats = 0;
    let places = 0;
    for (const sector of layout.sectors) {
      if (!sector.numbered) places += sector.capacity ?? 0;
      for (const row of sector.rows ?? []) seats += row.seats.length;
    }
    return reply.status(201).send(ok({ version: saved.version, seats, capacity: seats + places, sessions_moved: saved.sessions_moved }, 'Layout version saved', 201));
  });
}
