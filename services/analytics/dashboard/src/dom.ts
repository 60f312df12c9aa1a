/** What an element is made with: its properties (never `innerHTML`), its attributes, its listeners. */
export interface ElementSpec {
  className?: string;
  id?: string;
  attrs?: Record<string, string>;
  on?: Partial<Record<keyof HTMLElementEventMap, (event: Event) => void>>;
  props?: Record<string, string | boolean | number>;
}

/**
 * An element with its children. Strings become text nodes: whatever a destination, a visitor or a page put in a
 * string is shown as text, never read as markup.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  spec: ElementSpec = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (spec.className) node.className = spec.className;
  if (spec.id) node.id = spec.id;
  for (const [name, value] of Object.entries(spec.attrs ?? {})) node.setAttribute(name, value);
  for (const [name, value] of Object.entries(spec.props ?? {}))
    (node as unknown as Record<string, unknown>)[name] = value;
  for (const [type, listener] of Object.entries(spec.on ?? {})) if (listener) node.addEventListener(type, listener);
  for (const child of children) {
    if (child !== null && child !== undefined)
      node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** A labelled text field with the place its error is shown, tied to it for screen readers. */
export function field(id: string, label: string, input: Record<string, string | boolean | number> = {}) {
  const control = el('input', { id, props: { name: id, ...input }, attrs: { 'aria-describedby': `${id}-error` } });
  const error = el('p', { className: 'error', id: `${id}-error`, attrs: { 'aria-live': 'polite' } });
  const wrapper = el('div', { className: 'field' }, el('label', { attrs: { for: id } }, label), control, error);
  return {
    wrapper,
    control,
    showError(text: string | null) {
      error.textContent = text ?? '';
      if (text) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
    },
  };
}
