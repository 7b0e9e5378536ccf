import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../../platform/actor.js';
import { createAccountAs, listAccountsFor, resendInvitationAs, setAccountDisabledAs, type AccountView } from '../accounts-admin.service.js';
import { INVITATION_TTL_HOURS } from '../invitations.service.js';
import { createOrganiser, listOrganisersFor, organiserSummariesFor, updateOrganiser } from '../organisers.service.js';
import { createTokenAs, listTokensFor, revokeTokenAs } from '../tokens-admin.service.js';
import { formPage, formPost, idParam, pageContext, sendPage } from './kit/dashboard.http.js';
import * as F from './kit/dashboard.form.js';
import { ActionButton, Card, Field, HintLine, PostForm, Select, ShowOnce, Table } from './kit/dashboard.controls.js';
import { Csrf, Page, type PageContext } from './kit/dashboard.page.js';
import { when } from './kit/dashboard.time.js';

// Self-service pages of the back office (D65, docs/admin.md "Starting from zero"): organisers and
// accounts (admins only; a promoter sees its own account), invitation links, and admin API tokens
// (an admin: every token; a promoter: its own). A refused form comes back with the errors beside
// its fields (422).

type Errors = Record<string, string[]>;

const STATUS_LABELS: Record<AccountView['status'], [string, string]> = {
  active: ['badge live', 'active'],
  disabled: ['badge off', 'disabled'],
  invited: ['badge', 'invited'],
  invitation_expired: ['badge off', 'invitation expired'],
};

function StatusBadge({ status }: { status: AccountView['status'] }) {
  const [cls, text] = STATUS_LABELS[status];
  return <span class={cls}>{text}</span>;
}

export default async function accountsDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  // ---- organisers (admins only)
  async function organisersPage(pc: PageContext, errors: Errors = {}, values: F.Form = {}, editing: number | null = null) {
    requireAdmin(pc.actor);
    const list = await organiserSummariesFor(ctx, pc.actor);
    return (
      <Page pc={pc} title="Organisers">
        <Card id="orgs-h" title="Organisers">
          <Table
            head={['Name', 'Events', 'Venues', 'Accounts', 'Created', 'Rename']}
            rows={list.map((o) => (
              <tr>
                <td>{o.name}</td>
                <td>{o.events}</td>
                <td>{o.venues}</td>
                <td>{o.accounts}</td>
                <td>{when(o.created_at, pc.timeZone)}</td>
                <td>
                  <form class="search" method="post" action={`/admin/organisers/${o.id}`}>
                    <Csrf pc={pc} />
                    <Field
                      name="name"
                      label={`New name for ${o.name}`}
                      value={editing === o.id ? F.text(values, 'name') : o.name}
                      required
                      errors={editing === o.id ? errors.name : undefined}
                      attrs={{ maxlength: 200 }}
                    />
                    <button type="submit" class="secondary" aria-label={`Rename ${o.name}`}>
                      Rename
                    </button>
                  </form>
                </td>
              </tr>
            ))}
            caption="Organisers: the tenants that venues, events, channels and promoter accounts belong to"
          />
        </Card>
        <Card id="new-org-h" title="New organiser">
          <PostForm pc={pc} action="/admin/organisers" submit="Create organiser">
            <Field name="name" label="Name" required value={editing === null ? F.text(values, 'name') : ''} errors={editing === null ? errors.name : undefined} attrs={{ maxlength: 200 }} />
          </PostForm>
          <p class="hint">
            Next: <a href="/admin/accounts">invite a promoter</a> for it.
          </p>
        </Card>
      </Page>
    );
  }

  formPage(app, '/organisers', 'organisers', organisersPage, async (form, actor) => {
    await createOrganiser(ctx, actor, { name: F.text(form, 'name') });
    return ['/admin/organisers', 'created'];
  });

  formPost(
    app,
    '/organisers/:organiserId',
    async (form, actor, request) => {
      requireAdmin(actor);
      await updateOrganiser(ctx, actor, idParam(request, 'organiserId'), { name: F.text(form, 'name') });
      return ['/admin/organisers', 'saved'];
    },
    { refused: (request, errors, form) => organisersPage(pageContext(request, 'organisers'), errors, form, idParam(request, 'organiserId')) },
  );

  // ---- accounts
  async function accountsPage(pc: PageContext, errors: Errors = {}, values: F.Form = {}) {
    const accounts = await listAccountsFor(ctx, pc.actor);
    const admin = pc.actor.role === 'admin';
    const organisers = admin ? await listOrganisersFor(ctx, pc.actor) : [];
    const actions = (a: AccountView) =>
      !admin || a.id === pc.actor.userId ? null : (
        <>
          {a.status === 'invited' || a.status === 'invitation_expired' ? (
            <ActionButton pc={pc} action={`/admin/accounts/${a.id}/invitation`} label="New invitation link" accessibleName={`New invitation link for ${a.email}`} />
          ) : null}{' '}
          {a.status === 'disabled' ? (
            <ActionButton pc={pc} action={`/admin/accounts/${a.id}/enable`} label="Enable" accessibleName={`Enable ${a.email}`} />
          ) : (
            <ActionButton pc={pc} action={`/admin/accounts/${a.id}/disable`} label="Disable" cls="danger" accessibleName={`Disable ${a.email}`} />
          )}
        </>
      );
    return (
      <Page pc={pc} title="Accounts">
        <Card id="accounts-h" title={admin ? 'Accounts' : 'Your account'}>
          <Table
            head={['E-mail', 'Role', 'Organiser', 'Status', 'Created', '']}
            rows={accounts.map((a) => (
              <tr>
                <td>{a.email}</td>
                <td>{a.role}</td>
                <td>{a.organiser_name ?? <span class="hint">all (admin)</span>}</td>
                <td>
                  <StatusBadge status={a.status} />
                  {a.status === 'invited' && a.invitation_expires_at ? <HintLine>link valid until {when(a.invitation_expires_at, pc.timeZone)}</HintLine> : null}
                </td>
                <td>{when(a.created_at, pc.timeZone)}</td>
                <td>{actions(a)}</td>
              </tr>
            ))}
            caption={admin ? 'Every admin and promoter account' : 'Only an admin manages accounts'}
          />
        </Card>
        {admin ? (
          <Card id="new-account-h" title="New account">
            <PostForm pc={pc} action="/admin/accounts" submit="Create account">
              <Field name="email" label="E-mail" type="email" required value={F.text(values, 'email')} errors={errors.email} attrs={{ autocomplete: 'off' }} />
              <Select
                name="role"
                label="Role"
                choices={{ promoter: 'promoter (one organiser)', admin: 'admin (everything)' }}
                selected={F.text(values, 'role') || 'promoter'}
                errors={errors.role}
              />
              <Select
                name="organiser_id"
                label="Organiser (promoters)"
                options={[['', '—'], ...organisers.map((o) => [o.id, o.name] as [number, string])]}
                selected={F.text(values, 'organiser_id')}
                errors={errors.organiser_id}
              />
              <Select
                name="method"
                label="How the password is set"
                choices={{ invitation: `an invitation link, valid ${INVITATION_TTL_HOURS} hours`, password: 'a password I type now' }}
                selected={F.text(values, 'method') || 'invitation'}
                errors={errors.method}
              />
              <Field name="password" label="Password" type="password" hint={'only with "a password I type now"; at least 12 characters'} errors={errors.password} attrs={{ autocomplete: 'new-password' }} />
            </PostForm>
            <p class="hint">The invitation link is e-mailed to the person, and shown to you once on the next page, in case the e-mail does not arrive.</p>
          </Card>
        ) : null}
      </Page>
    );
  }

  /** The page that shows a new invitation link once. */
  const invitationPage = (pc: PageContext, email: string, invitation: { link: string; expires_at: string }, created: boolean) => (
    <Page pc={pc} title={created ? 'Account created' : 'New invitation link'}>
      <section class="card" aria-labelledby="link-h">
        <h2 id="link-h">Invitation link for {email}</h2>
        <p>
          The link is on its way to {email} by e-mail. <strong>This is the only time it is shown here</strong>: copy it if the person does not receive the e-mail. It lets{' '}
          {email} choose a password and sign in, once, until {when(invitation.expires_at, pc.timeZone)} ({INVITATION_TTL_HOURS} hours).
          {created ? '' : ' Earlier links of this account no longer work, and their e-mails, if not sent yet, are not sent.'}
        </p>
        <ShowOnce id="invitation-link" label={`Invitation link for ${email}`} value={invitation.link} />
        <p>
          <a href="/admin/accounts">Back to the accounts</a>
        </p>
      </section>
    </Page>
  );

  formPage(app, '/accounts', 'accounts', accountsPage, async (form, actor, request) => {
    requireAdmin(actor);
    const created = await createAccountAs(ctx, actor, {
      email: F.text(form, 'email'),
      role: F.text(form, 'role'),
      organiserId: F.text(form, 'role') === 'promoter' ? F.number(form, 'organiser_id') : undefined,
      method: F.text(form, 'method'),
      password: F.text(form, 'password'),
    });
    return created.invitation ? invitationPage(pageContext(request, 'accounts'), created.email, created.invitation, true) : ['/admin/accounts', 'created'];
  });

  app.post('/accounts/:userId/invitation', async (request, reply) => {
    const pc = pageContext(request, 'accounts');
    const { email, invitation } = await resendInvitationAs(ctx, pc.actor, idParam(request, 'userId'));
    return sendPage(reply, invitationPage(pc, email, invitation, false), 201);
  });

  for (const [action, disabled] of [['disable', true], ['enable', false]] as const) {
    formPost(app, `/accounts/:userId/${action}`, async (form, actor, request) => {
      await setAccountDisabledAs(ctx, actor, idParam(request, 'userId'), disabled);
      return ['/admin/accounts', disabled ? 'disabled' : 'enabled'];
    });
  }

  // ---- admin API tokens
  async function tokensPage(pc: PageContext, errors: Errors = {}, values: F.Form = {}) {
    const tokens = await listTokensFor(ctx, pc.actor);
    const admin = pc.actor.role === 'admin';
    const owners = admin ? (await listAccountsFor(ctx, pc.actor)).filter((a) => a.status === 'active') : [];
    return (
      <Page pc={pc} title="API tokens">
        <Card id="tokens-h" title="Admin API tokens">
          <p>
            A token acts on <code>/api/admin/v1</code> with its owner's role and organiser (docs/admin.md). Revoking one stops it at once.
          </p>
          <Table
            head={['Name', 'Owner', 'Created', 'Last used', 'Status', '']}
            rows={tokens.map((t) => (
              <tr>
                <td>
                  {t.name} <span class="hint">…{t.last_four}</span>
                </td>
                <td>{t.user_email}</td>
                <td>{when(t.created_at, pc.timeZone)}</td>
                <td>{t.last_used_at ? when(t.last_used_at, pc.timeZone) : <span class="hint">not yet</span>}</td>
                <td>{t.revoked_at ? <span class="badge off">revoked {when(t.revoked_at, pc.timeZone)}</span> : <span class="badge live">active</span>}</td>
                <td>{t.revoked_at ? null : <ActionButton pc={pc} action={`/admin/tokens/${t.id}/revoke`} label="Revoke" cls="danger" accessibleName={`Revoke token ${t.name} of ${t.user_email}`} />}</td>
              </tr>
            ))}
            caption={admin ? 'Every token; "last used" is kept to the minute' : 'Your tokens; "last used" is kept to the minute'}
          />
        </Card>
        <Card id="new-token-h" title="New token">
          <PostForm pc={pc} action="/admin/tokens" submit="Create token">
            <Field name="name" label="Name" required value={F.text(values, 'name')} hint={'what it is for, e.g. "nightly import"'} errors={errors.name} attrs={{ maxlength: 100 }} />
            {admin ? (
              <Select
                name="user_id"
                label="Owner"
                options={owners.map((a) => [a.id, `${a.email} (${a.organiser_name ?? 'admin'})`] as [number, string])}
                selected={F.text(values, 'user_id') || pc.actor.userId}
                errors={errors.user_id}
              />
            ) : null}
          </PostForm>
        </Card>
      </Page>
    );
  }

  formPage(app, '/tokens', 'tokens', tokensPage, async (form, actor, request) => {
    const created = await createTokenAs(ctx, actor, { userId: F.number(form, 'user_id'), name: F.text(form, 'name') });
    return (
      <Page pc={pageContext(request, 'tokens')} title="New API token">
        <Card id="token-h" title="Copy the token now">
          <p>
            <strong>This is the only time the token is shown.</strong> Taquilla keeps only a hash. Send it as <code>Authorization: Bearer …</code> to <code>/api/admin/v1</code>.
          </p>
          <ShowOnce id="new-token" label={`Token ${created.name} of ${created.user_email}`} value={created.token} />
          <p>
            <a href="/admin/tokens">Back to the tokens</a>
          </p>
        </Card>
      </Page>
    );
  });

  formPost(app, '/tokens/:tokenId/revoke', async (form, actor, request) => {
    await revokeTokenAs(ctx, actor, idParam(request, 'tokenId'));
    return ['/admin/tokens', 'token_revoked'];
  });
}
