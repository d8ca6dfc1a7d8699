// Reads and small actions on one element that a locator asks for (driver/locatorDriver.ts): what
// has no input event of its own runs here, firing the events a user's action would.

/** What readState answers for. */
export type StateName = 'visible' | 'checked' | 'value' | 'innerText' | 'innerHTML' | 'textContent';

/** A file handed over in memory, its bytes in base64. */
export interface FilePayload {
  name: string;
  mimeType: string;
  lastModified: number;
  base64: string;
}

export interface ElementHelpers {
  readState(el: Element, what: StateName): boolean | string;
  /** Selects the options whose value or label is one of `values`; their values, or why it cannot. */
  selectValues(el: Element, values: string[]): { values: string[]; why: string };
  /** Dispatches a DOM `click` event on the element, with no pointer input behind it. */
  clickEvent(el: Element, init: MouseEventInit): void;
  /** '' for an <input type=file> that can take `count` files; else why not. */
  fileInputProblem(el: Element, count: number): string;
  /** Puts the files in the input (a DataTransfer's list) and fires input and change. */
  putFiles(el: Element, files: FilePayload[]): void;
}

function isVisible(el: Element): boolean {
  if (!el.isConnected) return false;
  const style = getComputedStyle(el);
  if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
  const rect = el.getBoundingClientRect();
  return Math.max(rect.width, rect.height) > 0 && el.getClientRects().length > 0;
}

function readState(el: Element, what: StateName): boolean | string {
  const node = el as HTMLInputElement;
  switch (what) {
    case 'visible':
      return isVisible(el);
    case 'checked':
      if (node.localName === 'input' && (node.type === 'checkbox' || node.type === 'radio')) return node.checked;
      return el.getAttribute('aria-checked') === 'true';
    case 'value':
      if (['input', 'textarea', 'select'].includes(node.localName)) return String(node.value ?? '');
      return node.isContentEditable ? (el.textContent ?? '') : '';
    case 'innerText':
      // Elements without layout text (SVG) answer with their text content.
      return node.innerText || (el.textContent ?? '');
    case 'innerHTML':
      return el.innerHTML;
    case 'textContent':
      return el.textContent ?? '';
  }
}

function selectValues(el: Element, values: string[]): { values: string[]; why: string } {
  if (!(el instanceof HTMLSelectElement)) return { values: [], why: `it is a <${el.localName}>, not a <select>` };
  if (el.disabled) return { values: [], why: 'the list is disabled' };
  const wanted = values.map((value) => value.trim());
  const options = Array.from(el.options);
  const fits = (option: HTMLOptionElement, value: string) =>
    option.value.trim() === value || (option.label || option.text).trim() === value;
  const missing = wanted.filter((value) => !options.some((option) => fits(option, value)));
  if (missing.length) {
    const some = options.slice(0, 5).map((option) => JSON.stringify(option.label || option.text));
    return {
      values: [],
      why: `it has no option ${missing.map((value) => JSON.stringify(value)).join(', ')} among its ${options.length} (${some.join(', ')}${options.length > 5 ? ', …' : ''}); name options by value or label`,
    };
  }
  if (wanted.length > 1 && !el.multiple) return { values: [], why: `it takes one option, not ${wanted.length}` };
  let chosen = false;
  for (const option of options) {
    const pick: boolean = wanted.some((value) => fits(option, value)) && (el.multiple || !chosen);
    option.selected = pick;
    chosen ||= pick;
  }
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return { values: Array.from(el.selectedOptions).map((option) => option.value), why: '' };
}

function clickEvent(el: Element, init: MouseEventInit): void {
  el.dispatchEvent(new MouseEvent('click', { ...init, view: window }));
}

function fileInputProblem(el: Element, count: number): string {
  if (!(el instanceof HTMLInputElement) || el.type !== 'file')
    return `it is ${el.localName === 'input' ? `an <input type="${(el as HTMLInputElement).type}">` : `a <${el.localName}>`}, not an <input type="file">`;
  if (el.disabled) return 'it is disabled';
  return count > 1 && !el.multiple ? `it takes one file (no \`multiple\` attribute), not ${count}` : '';
}

function putFiles(el: Element, files: FilePayload[]): void {
  const transfer = new DataTransfer();
  for (const file of files) {
    const binary = atob(file.base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    transfer.items.add(new File([bytes], file.name, { type: file.mimeType, lastModified: file.lastModified }));
  }
  (el as HTMLInputElement).files = transfer.files;
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

export const elementHelpers: ElementHelpers = { readState, selectValues, clickEvent, fileInputProblem, putFiles };
