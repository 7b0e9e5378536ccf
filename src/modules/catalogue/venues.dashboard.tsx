import type { FastifyInstance } from 'fastify';
import { invalidData, schemaErrors } from '../../http/errors.js';
import { VenueCreate } from './layout.schemas.js';
import { createLayoutAs, createVenueAs, getLayoutFor, getVenueFor, listLayoutsFor, listVenueViewsFor, type LayoutFormat } from './layouts.service.js';
import { formPage, formPost, idParam, organisersFor, pageContext, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { Card, chosenOrganiser, Field, PostForm, Select, Table, TextArea } from '../admin/dashboard/kit/dashboard.controls.js';
import { Page, type PageContext } from '../admin/dashboard/kit/dashboard.page.js';
import { when } from '../admin/dashboard/kit/dashboard.time.js';

// Venues and their seat-map versions in the dashboard (D64, D65, docs/venues.md), over the venues
// service of the catalogue module (its rules, not copies of them): the venues the account may use,
// a new venue, a venue's versions, uploading a Taquilla or pretix layout and downloading a version.

/** As the admin API's layout body (venues.routes.ts): a 20,000-seat plan is about 3 MB of JSON. */
const LAYOUT_BODY_LIMIT = 16 * 1024 * 1024;
const FORMATS: Record<LayoutFormat, string> = { taquilla: 'Taquilla layout (JSON)', pretix: 'pretix seating plan (JSON)' };
type Errors = Record<string, string[]>;

/** The errors of a layout (keys `plan`, `plan.sectors.1.name`, ...) as lines under the text box. */
const planErrors = (errors: Errors) =>
  Object.entries(errors)
    .filter(([k]) => k === 'plan' || k.startsWith('plan.'))
    .map(([k, v]) => (k === 'plan' ? v.join('; ') : `${k.slice(5)}: ${v.join('; ')}`));

export default async function venuesDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const organiserNames = async (pc: PageContext) => new Map((await organisersFor(ctx, pc.actor)).map((o) => [o.id, o.name]));

  async function venuesPage(pc: PageContext, errors: Errors = {}, values: F.Form = {}) {
    const venues = await listVenueViewsFor(ctx, pc.actor);
    const names = await organiserNames(pc);
    const admin = pc.actor.role === 'admin';
    return (
      <Page pc={pc} title="Venues">
        <Card id="venues-h" title="Venues">
          <Table
            head={['Name', 'City', ...(admin ? ['Organiser'] : []), 'Seat map', 'Sectors']}
            rows={venues.map((v) => (
              <tr>
                <td>
                  <a href={`/admin/venues/${v.id}`}>{v.name}</a>
                </td>
                <td>{v.city ?? ''}</td>
                {admin ? <td>{names.get(v.organiser_id) ?? ''}</td> : null}
                <td>{v.layout_version === null ? <span class="hint">no layout yet</span> : `version ${v.layout_version}`}</td>
                <td>{v.sectors.map((s) => `${s.name} (${s.capacity})`).join(', ')}</td>
              </tr>
            ))}
            caption={admin ? "Every organiser's venues" : "Your organiser's venues"}
          />
        </Card>
        <Card id="new-venue-h" title="New venue">
          <PostForm pc={pc} action="/admin/venues" submit="Create venue">
            {admin ? (
              <Select
                name="organiser_id"
                label="Organiser"
                options={[['', '—'], ...[...names].map(([id, name]) => [id, name] as [number, string])]}
                selected={F.text(values, 'organiser_id')}
                errors={errors.organiser_id}
              />
            ) : null}
            <Field name="name" label="Name" required value={F.text(values, 'name')} errors={errors.name} attrs={{ maxlength: 300 }} />
            <Field name="city" label="City" value={F.text(values, 'city')} errors={errors.city} attrs={{ maxlength: 300 }} />
            <Field name="address" label="Address" value={F.text(values, 'address')} errors={errors.address} attrs={{ maxlength: 300 }} />
          </PostForm>
          <p class="hint">Then open the venue to upload its seat map.</p>
        </Card>
      </Page>
    );
  }

  formPage(app, '/venues', 'venues', venuesPage, async (form, actor) => {
    const input: VenueCreate = { name: F.text(form, 'name'), city: F.nullable(form, 'city'), address: F.nullable(form, 'address') };
    const organiserId = chosenOrganiser(form, actor);
    if (organiserId !== undefined) input.organiser_id = organiserId;
    // The admin API's body schema, then the service (which names the organiser and checks it).
    const problems = schemaErrors(VenueCreate, input, 'whole');
    if (problems) throw invalidData(problems);
    const venue = await createVenueAs(ctx, actor, input);
    return [`/admin/venues/${venue.id}`, 'created'];
  });

  async function venuePage(pc: PageContext, venueId: number, errors: Errors = {}, values: F.Form = {}) {
    const venue = await getVenueFor(ctx, pc.actor, venueId);
    const versions = await listLayoutsFor(ctx, pc.actor, venueId);
    const organiser = (await organiserNames(pc)).get(venue.organiser_id) ?? '';
    // The designer is another module's page: linked only when this deployment has it.
    const designer = app.hasRoute({ method: 'GET', url: '/admin/venues/:venueId/designer' });
    const dl = (v: number, format: LayoutFormat) => `/admin/venues/${venueId}/layouts/${v}/download?format=${format}`;
    const planProblems = planErrors(errors);
    return (
      <Page pc={pc} title={`Venue ${venue.name}`}>
        <p>
          <a href="/admin/venues">All venues</a>
        </p>
        <Card id="venue-h" title={venue.name}>
          <dl class="facts">
            <dt>Organiser</dt>
            <dd>{organiser}</dd>
            <dt>City</dt>
            <dd>{venue.city ?? ''}</dd>
            <dt>Address</dt>
            <dd>{venue.address ?? ''}</dd>
            <dt>Created</dt>
            <dd>{when(venue.created_at, pc.timeZone)}</dd>
          </dl>
          {designer ? (
            <p>
              <a class="button" href={`/admin/venues/${venueId}/designer`}>
                Open in designer
              </a>
            </p>
          ) : null}
        </Card>
        <Card id="versions-h" title="Seat map versions">
          <p class="hint">Each version is kept unchanged; saving a new one moves the venue's upcoming sessions onto it (docs/venues.md).</p>
          <Table
            head={['Version', 'Seats', 'Capacity', 'Sessions', 'Saved', 'Download']}
            rows={versions.map((v) => (
              <tr>
                <td>{v.version}</td>
                <td>{v.seats}</td>
                <td>{v.capacity}</td>
                <td>{v.sessions}</td>
                <td>{when(v.created_at, pc.timeZone)}</td>
                <td>
                  <a href={dl(v.version, 'taquilla')} aria-label={`Download version ${v.version} as a Taquilla layout`}>
                    Taquilla
                  </a>{' '}
                  ·{' '}
                  <a href={dl(v.version, 'pretix')} aria-label={`Download version ${v.version} as a pretix seating plan`}>
                    pretix
                  </a>
                </td>
              </tr>
            ))}
            caption="Oldest first; capacity counts seats and unnumbered places"
          />
        </Card>
        <Card id="upload-h" title="Upload a new version">
          <PostForm pc={pc} action={`/admin/venues/${venueId}/layouts`} submit="Save as a new version">
            <Select name="format" label="Format" choices={FORMATS} selected={F.text(values, 'format') || 'taquilla'} errors={errors.format} />
            <div class="field">
              <label for="plan-file">
                Layout file <span class="hint">fills the text box below</span>
              </label>
              <input id="plan-file" type="file" accept="application/json,.json" data-file-target="plan-text" />
            </div>
            <TextArea
              name="plan"
              label="Layout (JSON)"
              wide
              rows={10}
              required
              value={F.text(values, 'plan')}
              hint="choose a file above, or paste the JSON"
              errors={planProblems.length ? planProblems : undefined}
              id="plan-text"
              attrs={{ class: 'plan', spellcheck: false }}
            />
          </PostForm>
        </Card>
      </Page>
    );
  }

  app.get('/venues/:venueId', async (request, reply) => sendPage(reply, await venuePage(pageContext(request, 'venues'), idParam(request, 'venueId'))));

  formPost(
    app,
    '/venues/:venueId/layouts',
    async (form, actor, request) => {
      const venueId = idParam(request, 'venueId');
      const format = F.text(form, 'format');
      if (format !== 'taquilla' && format !== 'pretix') throw invalidData({ format: ['must be taquilla or pretix'] });
      let plan: unknown;
      try {
        plan = JSON.parse(F.text(form, 'plan'));
      } catch (err) {
        throw invalidData({ plan: [`is not valid JSON (${(err as Error).message})`] });
      }
      if (!plan || typeof plan !== 'object' || Array.isArray(plan)) throw invalidData({ plan: ['must be a JSON object'] });
      await createLayoutAs(ctx, actor, venueId, { format, plan: plan as Record<string, unknown> });
      return [`/admin/venues/${venueId}`, 'layout_saved'];
    },
    { refused: (request, errors, form) => venuePage(pageContext(request, 'venues'), idParam(request, 'venueId'), errors, form), bodyLimit: LAYOUT_BODY_LIMIT },
  );

  app.get('/venues/:venueId/layouts/:version/download', async (request, reply) => {
    const pc = pageContext(request, 'venues');
    const venueId = idParam(request, 'venueId');
    const { format: asked } = request.query as { format?: string };
    const format: LayoutFormat = asked === 'pretix' ? 'pretix' : 'taquilla';
    const layout = await getLayoutFor(ctx, pc.actor, venueId, idParam(request, 'version'), format);
    const venue = await getVenueFor(ctx, pc.actor, venueId);
    const slug = venue.name.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase() || 'venue';
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="${slug}-v${layout.version}${format === 'pretix' ? '-pretix' : ''}.json"`)
      .send(JSON.stringify(layout.plan, null, 2));
  });
}
