import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { INTEGRATION_MODES } from '../../db/schema/index.js';
import { attachment, XLSX_TYPE } from '../../lib/download.js';
import { CREDENTIAL_SCOPES, type CredentialScope } from '../../lib/integration-policy.js';
import type { Actor } from '../../platform/actor.js';
import { languageChain, pickByLanguage } from '../../platform/i18n.js';
import { formPost, idParam, organisersFor, pageContext, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { ActionButton, Card, Checkboxes, chosenOrganiser, Field, OrganiserSelect, PostForm, Select, ShowOnce, Table } from '../admin/dashboard/kit/dashboard.controls.js';
import { Page, type PageContext } from '../admin/dashboard/kit/dashboard.page.js';
import { when } from '../admin/dashboard/kit/dashboard.time.js';
import { reportCsv, reportFileName, reportXlsx } from '../reports/reports.download.js';
import type { ReportQuery } from '../reports/reports.schemas.js';
import { parseReport, salesReport } from '../reports/reports.service.js';
import * as channels from './channels-admin.service.js';
import { integrationChecklist, LANGUAGES } from './channels.service.js';
import { money } from '../admin/dashboard/kit/dashboard.money.js';
import { eventName } from '../admin/dashboard/kit/dashboard.names.js';

// The channel pages of the dashboard: the channels, one channel's settings, widget and server keys,
// pre-production checklist, and its sales report. The dashboard shell
// (modules/admin/dashboard/dashboard.routes.tsx) mounts them behind its sign-in and CSRF hooks;
// src/app.ts hands them in.

/** An event a channel may sell, as the catalogue lists it to the signed-in user. */
interface ChannelEvent {
  id: number;
  names: Record<string, string>;
  status: string;
  organiser_id: number;
  default_lang: string;
}

export interface ChannelPagesSources {
  /**
   * The events the user may see (catalogue's listEventsFor), handed in by src/app.ts: catalogue
   * depends on channels, so channels does not import it.
   */
  eventsFor: (ctx: AppContext, actor: Actor) => Promise<ChannelEvent[]>;
}

/** The two kinds of channel key on the channel page (D7, D39): their URLs and what to tell the operator. */
const KEY_PAGES: Record<CredentialScope, { path: string; title: string; intro: string; store: string }> = {
  widget: {
    path: 'keys',
    title: 'Widget key',
    intro: 'The publishable key of the widget (models C and D put it in buyers\' pages). A new key is shown once. Revoking a key stops every widget token of the channel at once.',
    store: 'Put it in the page that loads the widget (models C and D) or in the channel\'s server configuration.',
  },
  server: {
    path: 'server-keys',
    title: 'Server key',
    intro: 'The key of the channel\'s own server: in models C and D only its tokens may confirm and read the sales report. Never put it in a web page. Several may be live while you rotate; revoking one stops the tokens issued from it at once.',
    store: 'Store it in the channel\'s server configuration, never in a web page.',
  },
};

/** The channel's pre-production checklist (docs/preproduction.md): a tick and a time per step of its model. */
function ChecklistSection({ pc, list }: { pc: PageContext; list: Awaited<ReturnType<typeof integrationChecklist>> }) {
  const done = list.steps.filter((s) => s.completed_at).length;
  return (
    <Card id="checklist-h" title="Pre-production checklist">
      {!list.recording ? (
        <p>This is a production deployment: the checklist is filled on the pre-production deployment, by the channel's own calls there.</p>
      ) : list.ready_to_go_live ? (
        <p>
          <span class="badge live" id="ready-to-go-live">
            Ready to go live
          </span>{' '}
          every step of model {list.model} is done.
        </p>
      ) : (
        <p>
          <span class="badge off">Not ready</span> {done} of {list.steps.length} steps of model {list.model} done.
        </p>
      )}
      <Table
        head={['Done', 'Step', 'First completed']}
        rows={list.steps.map((s) => (
          <tr data-step={s.step}>
            <td>{s.completed_at ? <span aria-label="done">✓</span> : <span aria-label="open">○</span>}</td>
            <td>{s.label}</td>
            <td>{s.completed_at ? when(s.completed_at, pc.timeZone) : ''}</td>
          </tr>
        ))}
        caption="Steps of the channel's integration, filled from its own calls"
      />
    </Card>
  );
}

function KeysSection({ pc, channelId, scope, keys }: { pc: PageContext; channelId: number; scope: CredentialScope; keys: { id: number; last_four: string; created_at: string; revoked_at: string | null }[] }) {
  const k = KEY_PAGES[scope];
  return (
    <section class="card" aria-labelledby={`${k.path}-h`}>
      <h2 id={`${k.path}-h`}>{`${k.title}s`}</h2>
      <p>{k.intro}</p>
      <ActionButton pc={pc} action={`/admin/channels/${channelId}/${k.path}`} label={`Generate a ${k.title.toLowerCase()}`} cls="" />
      <Table
        head={['Key', 'Created', 'Status', '']}
        rows={keys.map((key) => (
          <tr>
            <td>…{key.last_four}</td>
            <td>{when(key.created_at, pc.timeZone)}</td>
            <td>{key.revoked_at ? <span class="badge off">revoked {when(key.revoked_at, pc.timeZone)}</span> : <span class="badge live">active</span>}</td>
            <td>
              {key.revoked_at ? null : (
                <ActionButton pc={pc} action={`/admin/channels/${channelId}/${k.path}/${key.id}/revoke`} label="Revoke" cls="danger" accessibleName={`Revoke ${k.title.toLowerCase()} ending ${key.last_four}`} />
              )}
            </td>
          </tr>
        ))}
        caption="Keys are listed by their last four characters"
      />
    </section>
  );
}

/** The page code that embeds the widget with a new key (docs/widget.md), ready to copy. */
function EmbedSnippet({ widgetUrl, slug, apiKey, lang }: { widgetUrl: string; slug: string; apiKey: string; lang: string }) {
  const code = `<div id="tickets"></div>
<script src="${widgetUrl}/v1/widget.iife.js"></script>
<script>
  TicketWidget.init({
    container: '#tickets',
    channelSlug: '${slug}',
    sessionId: 1, // the id of the session to sell (Events, then the session's page)
    apiKey: '${apiKey}',
    lang: '${lang}',
  });
</script>`;
  return (
    <div class="field">
      <label for="embed-snippet">Code for the partner's page (model C or D)</label>
      <textarea id="embed-snippet" class="snippet" readOnly rows={11} spellcheck={false}>
        {code}
      </textarea>
      <div>
        <button type="button" data-copy-target="embed-snippet" data-copy-status="snippet-status">
          Copy the code
        </button>
      </div>
      <p id="snippet-status" role="status" aria-live="polite" class="hint" />
      <p class="hint">Replace the session id; see the widget guide (docs/widget.md) for the callbacks.</p>
    </div>
  );
}

const MODE_LABELS: Record<string, string> = {
  portal_only: 'A · portal only',
  portal_external_payment: 'B · portal, own checkout page',
  widget_platform_payment: 'C · widget, portal payment',
  widget_external_payment: 'D · widget, own payment',
};

/** The channel form's fields that creating and editing share. */
const channelFormFields = (form: F.Form) => ({
  name: F.text(form, 'name'),
  integration_mode: F.text(form, 'integration_mode') as channels.ChannelInput['integration_mode'],
  checkout_url: F.nullable(form, 'checkout_url'),
  website_url: F.nullable(form, 'website_url'),
  cart_ttl_seconds: F.nullableNumber(form, 'cart_ttl_seconds'),
  default_lang: F.optional(form, 'default_lang'),
});

export default async function channelsDashboard(app: FastifyInstance, sources: ChannelPagesSources): Promise<void> {
  const ctx = app.ctx;

  // ---- channels
  const modeOptions = INTEGRATION_MODES.map((m) => [m, `${MODE_LABELS[m]} (${m})`] as [string, string]);
  const langOptions = LANGUAGES.map((l) => [l, l] as [string, string]);

  app.get('/channels', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const list = await channels.listChannelsFor(ctx, pc.actor);
    // Every organiser for an admin, its own for a promoter: the list names them.
    const organisers = await organisersFor(ctx, pc.actor);
    // A new channel sells the events ticked here (of its organiser: checked by the service).
    const events = await sources.eventsFor(ctx, pc.actor);
    const organiserName = new Map(organisers.map((o) => [o.id, o.name]));
    const eventOptions = events.map((e) => [e.id, `${eventName(e)} (${e.status}${organiserName.size > 1 ? `, ${organiserName.get(e.organiser_id) ?? e.organiser_id}` : ''})`] as [number, string]);
    return sendPage(
      reply,
      <Page pc={pc} title="Channels">
        <Card id="list-h" title="Sales channels">
          <Table
            head={['Slug', 'Name', 'Integration model', 'Organiser']}
            rows={list.map((c) => (
              <tr>
                <td>
                  <a href={`/admin/channels/${c.id}`}>{c.slug}</a>
                </td>
                <td>{c.name}</td>
                <td>{MODE_LABELS[c.integrationMode]}</td>
                <td>{organiserName.get(c.organiserId) ?? c.organiserId}</td>
              </tr>
            ))}
          />
        </Card>
        <Card id="new-h" title="New channel">
          <PostForm pc={pc} action="/admin/channels" submit="Create channel">
            <OrganiserSelect pc={pc} organisers={organisers} />
            <Field name="slug" label="Slug" required hint="a-z, 0-9 and -; appears in every API path" attrs={{ pattern: '[a-z0-9][a-z0-9\\-]{0,62}', autocapitalize: 'none' }} />
            <Field name="name" label="Name" required />
            <Select name="integration_mode" label="Integration model" options={modeOptions} />
            <Field name="checkout_url" label="Checkout URL" type="url" hint="model B only" />
            <Field name="website_url" label="Partner web site" type="url" hint="the portal links back to it (model C)" />
            <Field name="cart_ttl_seconds" label="Cart lifetime (seconds)" type="number" hint={`empty = ${ctx.config.cartTtlSeconds}`} attrs={{ min: 60, max: 86400 }} />
            <Select name="default_lang" label="Default language" options={langOptions} />
            <Checkboxes name="event_ids" legend="Events this channel sells" options={eventOptions} checked={[]} />
          </PostForm>
        </Card>
      </Page>,
    );
  });

  formPost(app, '/channels', async (form, actor) => {
    const channel = await channels.createChannelAs(ctx, actor, {
      organiser_id: chosenOrganiser(form, actor),
      slug: F.text(form, 'slug'),
      ...channelFormFields(form),
      event_ids: F.ids(form, 'event_ids'),
    });
    return [`/admin/channels/${channel.id}`, 'created'];
  });

  app.get('/channels/:channelId', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const channel = await channels.getChannelFor(ctx, pc.actor, id);
    const widgetKeys = await channels.listKeysFor(ctx, pc.actor, id, 'widget');
    const serverKeys = await channels.listKeysFor(ctx, pc.actor, id, 'server');
    const events = (await sources.eventsFor(ctx, pc.actor)).filter((e) => e.organiser_id === channel.organiser_id);
    const checklist = await integrationChecklist(ctx, { id, integrationMode: channel.integration_mode });
    const b = channel.branding;
    return sendPage(
      reply,
      <Page pc={pc} title={`Channel ${channel.slug}`}>
        <Card id="settings-h" title="Settings">
          <PostForm pc={pc} action={`/admin/channels/${id}`} submit="Save settings">
            <Field name="name" label="Name" value={channel.name} required />
            <Select name="integration_mode" label="Integration model" options={modeOptions} selected={channel.integration_mode} />
            <Field name="checkout_url" label="Checkout URL" type="url" value={channel.checkout_url} hint="required for model B" />
            <Field name="website_url" label="Partner web site" type="url" value={channel.website_url} hint="the portal links back to it (model C)" />
            <Field name="cart_ttl_seconds" label="Cart lifetime (seconds)" type="number" value={channel.cart_ttl_seconds} hint={`empty = ${ctx.config.cartTtlSeconds}`} attrs={{ min: 60, max: 86400 }} />
            <Select name="default_lang" label="Default language" options={langOptions} selected={channel.default_lang} />
            <Field name="branding_name" label="Brand name" value={b.name} />
            <Field name="branding_logo_url" label="Logo URL" type="url" value={b.logo_url} />
            <Field name="branding_primary_color" label="Primary colour" value={b.primary_color} hint="like #1f4fd1" attrs={{ pattern: '#[0-9a-fA-F]{6}' }} />
            <Field name="branding_accent_color" label="Accent colour" value={b.accent_color} hint="like #0b7a3b" attrs={{ pattern: '#[0-9a-fA-F]{6}' }} />
            <Field name="branding_font_family" label="Font family" value={b.font_family} />
            <Checkboxes name="event_ids" legend="Events this channel sells" options={events.map((e) => [e.id, `${eventName(e)} (${e.status})`])} checked={channel.event_ids} />
          </PostForm>
        </Card>
        <KeysSection pc={pc} channelId={id} scope="widget" keys={widgetKeys} />
        <KeysSection pc={pc} channelId={id} scope="server" keys={serverKeys} />
        <ChecklistSection pc={pc} list={checklist} />
        <Card id="sales-h" title="Orders and sales">
          <ul>
            <li>
              <a href={`/admin/orders?channel_id=${id}`}>Orders of this channel</a>
            </li>
            <li>
              <a href={`/admin/channels/${id}/report`}>Sales report</a>
            </li>
          </ul>
        </Card>
        <Card id="webhooks-h" title="Webhooks">
          <p>
            Signed notifications of completed, cancelled, expired and refunded orders to the channel's server: <a href={`/admin/channels/${id}/webhooks`}>endpoints, secrets and deliveries</a>.
          </p>
        </Card>
      </Page>,
    );
  });

  formPost(app, '/channels/:channelId', async (form, actor, request) => {
    const id = idParam(request, 'channelId');
    await channels.updateChannelAs(ctx, actor, id, {
      ...channelFormFields(form),
      branding: {
        name: F.text(form, 'branding_name'),
        logo_url: F.text(form, 'branding_logo_url'),
        primary_color: F.text(form, 'branding_primary_color'),
        accent_color: F.text(form, 'branding_accent_color'),
        font_family: F.text(form, 'branding_font_family'),
      },
      event_ids: F.ids(form, 'event_ids'),
    });
    return [`/admin/channels/${id}`, 'saved'];
  });

  for (const scope of CREDENTIAL_SCOPES) {
    const k = KEY_PAGES[scope];
    app.post(`/channels/:channelId/${k.path}`, async (request, reply) => {
      const pc = pageContext(request, 'channels');
      const id = idParam(request, 'channelId');
      const channel = await channels.getChannelFor(ctx, pc.actor, id);
      const key = scope === 'widget' ? (await channels.generateKeyAs(ctx, pc.actor, id)).widget_key : (await channels.generateServerKeyAs(ctx, pc.actor, id)).server_key;
      return sendPage(
        reply,
        <Page pc={pc} title={`New ${k.title.toLowerCase()}`}>
          <Card id="key-h" title="Copy the key now">
            <p>
              <strong>This is the only time the key is shown.</strong> {k.store} Taquilla keeps only a hash.
            </p>
            <ShowOnce id="new-key" label={`${k.title} for ${channel.slug}`} value={key} statusId="copy-status" />
            {scope === 'widget' ? <EmbedSnippet widgetUrl={ctx.config.widgetUrl} slug={channel.slug} apiKey={key} lang={channel.default_lang} /> : null}
            <p>
              <a href={`/admin/channels/${id}`}>Back to the channel</a>
            </p>
          </Card>
        </Page>,
        201,
      );
    });

    formPost(app, `/channels/:channelId/${k.path}/:keyId/revoke`, async (form, actor, request) => {
      const id = idParam(request, 'channelId');
      await channels.revokeKeyAs(ctx, actor, id, idParam(request, 'keyId'), scope);
      return [`/admin/channels/${id}`, 'revoked'];
    });
  }

  // ---- the channel's sales report (read-only), through the reports module's service
  /** The report filters of the page's query string; malformed values are left to the service's 422. */
  const reportQueryOf = (request: { query: unknown }): ReportQuery => {
    const q = request.query as Record<string, string | undefined>;
    const eventId = q.event_id && /^\d{1,9}$/.test(q.event_id) ? Number(q.event_id) : undefined;
    return { event_id: eventId, date_from: q.date_from || undefined, date_to: q.date_to || undefined };
  };
  const reportSearch = (query: ReportQuery) =>
    new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)])).toString();

  app.get('/channels/:channelId/report', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const channel = await channels.getChannelFor(ctx, pc.actor, id);
    const query = reportQueryOf(request);
    const { data: rows, summary } = parseReport(await salesReport(ctx, id, channel.default_lang, query));
    const events = (await sources.eventsFor(ctx, pc.actor)).filter((e) => channel.event_ids.includes(e.id));
    const eventOptions: [string | number, string][] = [['', 'All events'], ...events.map((e) => [e.id, pickByLanguage(e.names, languageChain(channel.default_lang, e.default_lang)) ?? `#${e.id}`] as [number, string])];
    const inCurrency = (n: number) => money(n, summary.currency);
    // The SPEC summary's `tickets` counts the tickets issued (D30); a refund row's tickets are
    // negative: what the page shows as tickets is what remains after the refunds listed.
    const refundedTickets = -rows.filter((r) => r.type === 'refund' && r.status === 'completed').reduce((n, r) => n + r.tickets, 0);
    const search = reportSearch(query);
    const suffix = search ? `?${search}` : '';
    return sendPage(
      reply,
      <Page pc={pc} title={`Sales report · ${channel.slug}`}>
        <Card id="filter-h" title="Filters">
          <form class="grid" method="get" action={`/admin/channels/${id}/report`}>
            <Field name="date_from" label="From date" type="date" value={query.date_from ?? ''} hint="first day included" />
            <Field name="date_to" label="To date" type="date" value={query.date_to ?? ''} hint="last day included" />
            <Select name="event_id" label="Event" options={eventOptions} selected={query.event_id ?? ''} />
            <div class="actions">
              <button type="submit">Show</button> <a href={`/admin/channels/${id}/report.csv${suffix}`}>Download CSV</a> · <a href={`/admin/channels/${id}/report.xlsx${suffix}`}>Download XLSX</a>
            </div>
          </form>
          <p class="hint">Without filters: completed orders only, newest first, at most 500 rows. With a filter cancelled orders are listed too.</p>
        </Card>
        <Card id="summary-h" title="Summary">
          <dl class="facts">
            <dt>Transactions</dt>
            <dd>
              {summary.transactions}: {summary.purchases} purchases, {summary.reservations} reservations, {summary.refunds} refunds
            </dd>
            <dt>Tickets</dt>
            <dd>
              {summary.tickets - refundedTickets} ({summary.tickets} issued, {refundedTickets} refunded)
            </dd>
            <dt>Total</dt>
            <dd>{inCurrency(summary.total_amount)}</dd>
            <dt>Refunded</dt>
            <dd>{inCurrency(summary.refund_amount)}</dd>
            <dt>Net</dt>
            <dd>{inCurrency(summary.net_amount)}</dd>
          </dl>
        </Card>
        <Card id="rows-h" title="Orders">
          <Table
            head={['Reference', 'Type', 'Status', 'When', 'Customer', 'Event', 'Tickets', 'Total', 'Payment']}
            rows={rows.map((r) => (
              <tr>
                <td>{r.order_reference}</td>
                <td>{r.type}</td>
                <td>{r.status}</td>
                <td>{when(r.datetime, pc.timeZone)}</td>
                <td>{[r.customer_name, r.customer_email].filter(Boolean).join(' · ')}</td>
                <td>{r.event_name ?? ''}</td>
                <td>{r.tickets}</td>
                <td>{inCurrency(r.total_amount)}</td>
                <td>{r.payment_method ?? ''}</td>
              </tr>
            ))}
            caption="Read-only"
          />
        </Card>
        <p>
          <a href={`/admin/channels/${id}`}>Back to {channel.slug}</a> · <a href={`/admin/orders?channel_id=${id}`}>Orders of {channel.slug}</a>
        </p>
      </Page>,
    );
  });

  // The same rows as the SPEC report's downloads, named after the channel and the period read.
  for (const extension of ['csv', 'xlsx'] as const) {
    app.get(`/channels/:channelId/report.${extension}`, async (request, reply) => {
      const pc = pageContext(request, 'channels');
      const id = idParam(request, 'channelId');
      const channel = await channels.getChannelFor(ctx, pc.actor, id);
      const report = await salesReport(ctx, id, channel.default_lang, reportQueryOf(request));
      const { data } = parseReport(report);
      reply.header('content-disposition', attachment(reportFileName(channel.slug, report.filters, extension)));
      if (extension === 'csv') return reply.type('text/csv; charset=utf-8').send(reportCsv(data));
      return reply.type(XLSX_TYPE).send(reportXlsx(data, ctx.config));
    });
  }
}
