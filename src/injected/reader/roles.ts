// Roles and states, after the HTML-AAM mapping Chrome follows, trimmed to what carries meaning.

import { clean, quote, textOf, textOfIds } from './text.js';

/** Roles whose name comes from their content and whose children add nothing once named. */
export const LEAF_ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'option',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'image',
  'img',
  'progressbar',
  'slider',
  'separator',
  'scrollbar',
  'tooltip',
]);

/** Roles that are kept even with no name and no children: a field is worth knowing about empty. */
export const KEEP_EMPTY = new Set([
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'checkbox',
  'radio',
  'switch',
  'slider',
  'spinbutton',
  'button',
  'Iframe',
]);

/** Containers that add nothing when they hold exactly one node and have no name of their own. */
export const PASS_THROUGH = new Set(['listitem', 'paragraph', 'group', 'generic', 'blockquote', 'figure', 'term', 'definition']);

const BY_TAG: Record<string, string> = {
  article: 'article',
  aside: 'complementary',
  blockquote: 'blockquote',
  button: 'button',
  dd: 'definition',
  details: 'group',
  dialog: 'dialog',
  dl: 'list',
  dt: 'term',
  fieldset: 'group',
  figure: 'figure',
  h1: 'heading',
  h2: 'heading',
  h3: 'heading',
  h4: 'heading',
  h5: 'heading',
  h6: 'heading',
  li: 'listitem',
  main: 'main',
  math: 'math',
  menu: 'list',
  meter: 'meter',
  nav: 'navigation',
  ol: 'list',
  optgroup: 'group',
  output: 'status',
  p: 'paragraph',
  progress: 'progressbar',
  search: 'search',
  summary: 'button',
  table: 'table',
  td: 'cell',
  th: 'columnheader',
  tr: 'row',
  ul: 'list',
  caption: 'caption',
};

/** The role of a non-form element, or '' for a generic one (which adds no line). */
export function roleOf(el: Element, tag: string): string {
  const explicit = el.hasAttributes() ? el.getAttribute('role') : null;
  if (explicit) {
    const first = explicit.trim().split(/\s+/)[0]!.toLowerCase();
    if (first === 'none' || first === 'presentation' || first === 'generic') return '';
    if (first) return first;
  }
  switch (tag) {
    case 'a':
    case 'area':
      return el.hasAttribute('href') ? 'link' : '';
    case 'header':
    case 'footer':
      // Only page-level headers and footers are landmarks.
      return el.closest('article,aside,main,nav,section') ? '' : tag === 'header' ? 'banner' : 'contentinfo';
    case 'section':
    case 'form':
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title')
        ? tag === 'form'
          ? 'form'
          : 'region'
        : '';
    case 'th':
      return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
    default:
      return BY_TAG[tag] ?? '';
  }
}

/** Name given by the author: aria-labelledby, then aria-label. */
export function authorName(el: Element): string {
  if (!el.hasAttributes()) return '';
  const ids = el.getAttribute('aria-labelledby');
  const byIds = ids ? textOfIds(el, ids) : '';
  return byIds || clean(el.getAttribute('aria-label'));
}

/** States of an element with a role, as ` [..]` tokens. */
export function ariaStates(el: Element, role: string, tag: string): string {
  let out = '';
  if (!el.hasAttributes() && role !== 'heading' && tag !== 'summary' && tag !== 'button') return out;
  if (role === 'heading') {
    const level = el.getAttribute('aria-level') || (/^h[1-6]$/.test(tag) ? tag[1] : '');
    if (level) out += ` [level=${level}]`;
  }
  const checked = el.getAttribute('aria-checked');
  if (checked === 'true') out += ' [checked]';
  else if (checked === 'mixed') out += ' [mixed]';
  if (el.getAttribute('aria-selected') === 'true') out += ' [selected]';
  if (el.getAttribute('aria-pressed') === 'true') out += ' [pressed]';
  let expanded = el.getAttribute('aria-expanded');
  if (tag === 'summary' && el.parentElement?.localName === 'details') {
    expanded = (el.parentElement as HTMLDetailsElement).open ? 'true' : 'false';
  }
  if (expanded === 'true') out += ' [expanded]';
  else if (expanded === 'false') out += ' [collapsed]';
  if (el.getAttribute('aria-disabled') === 'true' || (tag === 'button' && (el as HTMLButtonElement).matches(':disabled'))) {
    out += ' [disabled]';
  }
  return out;
}

/** A form control, described in full: controls never have children worth walking (but select's options). */
export interface Control {
  role: string;
  name: string;
  states: string;
  options?: Array<{ name: string; states: string; el: Element }>;
}

/** The label of a form control: author name, then <label>s, then title. */
function labelOf(el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string {
  const author = authorName(el);
  if (author) return author;
  const labels = el.labels;
  if (labels && labels.length) {
    const text = clean(Array.from(labels, (label) => textOf(label, el)).join(' '));
    if (text) return text;
  }
  return clean(el.getAttribute('title'));
}

function disabled(el: Element): string {
  return el.matches(':disabled') ? ' [disabled]' : '';
}

const TEXT_INPUTS: Record<string, string> = {
  search: 'searchbox',
  number: 'spinbutton',
  range: 'slider',
};

export function describeControl(el: Element, tag: string): Control | null {
  if (tag === 'input') return describeInput(el as HTMLInputElement);
  if (tag === 'textarea') {
    const area = el as HTMLTextAreaElement;
    return field('textbox', labelOf(area), area.value, area.placeholder, disabled(area));
  }
  if (tag === 'select') return describeSelect(el as HTMLSelectElement);
  return null;
}

function describeInput(input: HTMLInputElement): Control | null {
  const type = (input.getAttribute('type') || 'text').toLowerCase();
  const off = disabled(input);
  switch (type) {
    case 'hidden':
      return null;
    case 'checkbox':
    case 'radio': {
      const state = input.indeterminate ? ' [mixed]' : input.checked ? ' [checked]' : '';
      return { role: explicitRole(input) || type, name: labelOf(input), states: state + off };
    }
    case 'button':
    case 'submit':
    case 'reset':
    case 'image': {
      const fallback = type === 'reset' ? 'Reset' : type === 'button' ? '' : 'Submit';
      const name = authorName(input) || clean(type === 'image' ? input.alt : input.value) || clean(input.title) || fallback;
      return { role: 'button', name, states: off };
    }
    case 'file':
      return { role: 'button', name: labelOf(input) || 'Choose File', states: off };
    case 'password':
      // The value of a password field never leaves the page.
      return field('textbox', labelOf(input), '', input.placeholder, off + (input.value ? ' [filled]' : ''));
    default: {
      const role = explicitRole(input) || (input.hasAttribute('list') ? 'combobox' : (TEXT_INPUTS[type] ?? 'textbox'));
      return field(role, labelOf(input), input.value, input.placeholder, off);
    }
  }
}

function explicitRole(el: Element): string {
  return clean(el.getAttribute('role')).split(' ')[0] ?? '';
}

/** A text-like field: the placeholder stands in for a missing label and is not repeated then. */
function field(role: string, label: string, value: string, placeholder: string, extra: string): Control {
  const hint = clean(placeholder);
  const name = label || hint;
  let states = '';
  if (clean(value)) states += ` [value=${quote(value)}]`;
  if (hint && label) states += ` [placeholder=${quote(hint)}]`;
  return { role, name, states: states + extra };
}

function describeSelect(select: HTMLSelectElement): Control {
  const role = select.multiple || select.size > 1 ? 'listbox' : 'combobox';
  const options: Control['options'] = [];
  for (const option of Array.from(select.options)) {
    if (option.hidden) continue;
    const name = clean(option.label || option.text);
    if (!name) continue;
    options.push({ name, el: option, states: (option.selected ? ' [selected]' : '') + (option.disabled ? ' [disabled]' : '') });
  }
  return { role, name: labelOf(select), states: disabled(select), options };
}
