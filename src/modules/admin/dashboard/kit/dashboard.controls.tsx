import type { ComponentChildren, JSX, VNode } from 'preact';
import type { Actor } from '../../../../platform/actor.js';
import * as F from './dashboard.form.js';
import { Csrf, type PageContext } from './dashboard.page.js';

// The form controls and tables of the dashboard's pages: every control has its label, its hint
// and its errors tied to it (aria-describedby), ids unique per render so one page can hold
// several forms.

interface FieldOptions<E extends HTMLElement> {
  name: string;
  label: string;
  value?: string | number | null;
  required?: boolean;
  hint?: string;
  wide?: boolean;
  /** Further attributes of the control (pattern, min, maxlength, autocomplete...). */
  attrs?: E extends HTMLTextAreaElement ? JSX.TextareaHTMLAttributes<E> : JSX.InputHTMLAttributes<HTMLInputElement>;
  /** Messages shown under the field (a refused form shown again), announced with the field. */
  errors?: string[];
}

let fieldCounter = 0;
const nextId = (name: string) => `f-${name}-${++fieldCounter}`;

/** The attributes that tie a control to its hint and errors. */
function described(id: string, hintId: string | null, errors: string[] | undefined) {
  const errorId = errors?.length ? `${id}-error` : null;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  return { 'aria-describedby': describedBy || undefined, 'aria-invalid': errorId ? ('true' as const) : undefined };
}

function FieldError({ id, errors }: { id: string; errors: string[] | undefined }) {
  if (!errors?.length) return null;
  return (
    <p class="field-error" id={`${id}-error`}>
      {errors.join('; ')}
    </p>
  );
}

function FieldLabel({ id, label, hint, hintId }: { id: string; label: string; hint?: string; hintId: string | null }) {
  return (
    <label for={id}>
      {label}
      {hintId ? (
        <>
          {' '}
          <span class="hint" id={hintId}>
            {hint}
          </span>
        </>
      ) : null}
    </label>
  );
}

/** A labelled input. */
export function Field({ type = 'text', ...opts }: FieldOptions<HTMLInputElement> & { type?: string }) {
  const id = nextId(opts.name);
  const hintId = opts.hint ? `${id}-hint` : null;
  return (
    <div class={opts.wide ? 'field wide' : 'field'}>
      <FieldLabel id={id} label={opts.label} hint={opts.hint} hintId={hintId} />
      <input id={id} name={opts.name} type={type} value={opts.value ?? ''} required={opts.required} {...described(id, hintId, opts.errors)} {...opts.attrs} />
      <FieldError id={id} errors={opts.errors} />
    </div>
  );
}

/** A labelled multi-line text box (the same options as Field; `value` is its text). */
export function TextArea({ rows = 8, ...opts }: FieldOptions<HTMLTextAreaElement> & { rows?: number; id?: string }) {
  const id = opts.id ?? nextId(opts.name);
  const hintId = opts.hint ? `${id}-hint` : null;
  return (
    <div class={opts.wide ? 'field wide' : 'field'}>
      <FieldLabel id={id} label={opts.label} hint={opts.hint} hintId={hintId} />
      <textarea id={id} name={opts.name} rows={rows} required={opts.required} {...described(id, hintId, opts.errors)} {...opts.attrs}>
        {opts.value ?? ''}
      </textarea>
      <FieldError id={id} errors={opts.errors} />
    </div>
  );
}

/** Fixed choices of a Select, as { value: text } in the order shown. */
export type Choices = Readonly<Record<string, string>>;

/** A labelled drop-down; `options` are [value, text] pairs, or `choices` fixed ones, `selected` the chosen value. */
export function Select({
  name,
  label,
  options = [],
  choices,
  selected,
  errors,
}: {
  name: string;
  label: string;
  options?: [string | number, string][];
  choices?: Choices;
  selected?: string | number | null;
  errors?: string[];
}) {
  const id = nextId(name);
  const list = choices ? Object.entries(choices) : options;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} name={name} {...described(id, null, errors)}>
        {list.map(([value, text]) => (
          <option value={value} selected={String(value) === String(selected ?? '')}>
            {text}
          </option>
        ))}
      </select>
      <FieldError id={id} errors={errors} />
    </div>
  );
}

/** The organiser a new record is for: a choice for an admin; none for a promoter, whose records are its own organiser's. */
export function OrganiserSelect({ pc, organisers }: { pc: PageContext; organisers: { id: number; name: string }[] }) {
  return pc.actor.role === 'admin' ? <Select name="organiser_id" label="Organiser" options={organisers.map((o) => [o.id, `${o.name} (${o.id})`])} /> : null;
}

/** The organiser a new record's form chose (OrganiserSelect): an admin's choice; none for a promoter (the service takes its own). */
export const chosenOrganiser = (form: F.Form, actor: Actor): number | undefined => (actor.role === 'admin' ? F.number(form, 'organiser_id') : undefined);

/** A group of checkboxes, one per [id, text] option, with those in `checked` ticked. */
export function Checkboxes({ name, legend, options, checked }: { name: string; legend: string; options: [number, string][]; checked: number[] }) {
  return (
    <fieldset class="field wide">
      <legend>{legend}</legend>
      {options.length ? null : <p class="hint">None yet.</p>}
      {options.map(([value, text]) => (
        <label>
          <input type="checkbox" name={name} value={value} checked={checked.includes(value)} /> {text}
        </label>
      ))}
    </fieldset>
  );
}

/** A card of a page: a section named by its heading (`id` is the heading's, for aria-labelledby). */
export function Card({ id, title, children }: { id: string; title: string; children?: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * A form that POSTs to `action` with the session's CSRF token, its fields, and a row with its submit
 * button (`submitCls` and `submitName` as SubmitRow's `cls` and `accessibleName`).
 */
export function PostForm({
  pc,
  action,
  submit,
  submitCls,
  submitName,
  cls = 'grid',
  children,
}: {
  pc: PageContext;
  action: string;
  submit: string;
  submitCls?: string;
  submitName?: string;
  cls?: string;
  children?: ComponentChildren;
}) {
  return (
    <form class={cls} method="post" action={action}>
      <Csrf pc={pc} />
      {children}
      <SubmitRow cls={submitCls} accessibleName={submitName}>
        {submit}
      </SubmitRow>
    </form>
  );
}

/** The row with a form's submit button: `cls` secondary or danger, `accessibleName` where the label alone is ambiguous (a Save per row). */
export function SubmitRow({ cls, accessibleName, children }: { cls?: string; accessibleName?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <button type="submit" class={cls} aria-label={accessibleName}>
        {children}
      </button>
    </div>
  );
}

/** A form with one button that POSTs to `action` (publish, revoke, delete...). */
export function ActionButton({ pc, action, label, cls = 'secondary', accessibleName }: { pc: PageContext; action: string; label: string; cls?: string; accessibleName?: string }) {
  return (
    <form class="inline" method="post" action={action}>
      <Csrf pc={pc} />
      <button type="submit" class={cls} aria-label={accessibleName}>
        {label}
      </button>
    </form>
  );
}

/**
 * A table that scrolls inside its own box on a narrow screen (the page never scrolls sideways).
 * The box is a named region in the tab order, so that keyboard users can scroll it too (WCAG 2.1.1).
 */
export function Table({ head, rows, caption }: { head: string[]; rows: VNode[]; caption?: string }) {
  return (
    <div class="table-wrap" role="region" tabindex={0} aria-label={caption ?? 'Table'}>
      <table>
        {caption ? (
          <caption class="hint">
            <span>{caption}</span>
          </caption>
        ) : null}
        <thead>
          <tr>
            {head.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length ? (
            rows
          ) : (
            <tr>
              <td colspan={head.length}>Nothing yet.</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** A second, quieter line under the main text of a cell or a list item (an e-mail under a name, a time under an event). */
export function HintLine({ children }: { children: ComponentChildren }) {
  return (
    <>
      <br />
      <span class="hint">{children}</span>
    </>
  );
}

/** A secret or link shown once in a read-only box, with a button that copies it (admin.js). */
export function ShowOnce({ id, label, value, statusId = `${id}-status` }: { id: string; label: string; value: string; statusId?: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="secret">
        <input id={id} readonly value={value} autocomplete="off" spellcheck={false} />
        <button type="button" data-copy-target={id} data-copy-status={statusId}>
          Copy
        </button>
      </div>
      <p id={statusId} role="status" aria-live="polite" class="hint" />
    </div>
  );
}
