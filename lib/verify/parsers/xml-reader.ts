// A small, safe XML reader for test reports (JUnit XML): elements, attributes, text and CDATA.
// No DTDs are processed and no entities are expanded beyond the five XML ones and numeric
// character references, so a hostile report cannot blow up (billion laughs) or read files
// (external entities). Declarations, processing instructions and comments are skipped. Pure.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text and CDATA, concatenated (not its children's). */
  text: string;
}

const MAX_DEPTH = 200;
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** The document's root element, or null when the text is not well-formed enough to read. */
export function readXml(text: string): XmlElement | null {
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const lt = text.indexOf('<', i);
    if (lt < 0) {
      appendText(stack, decodeEntities(text.slice(i)));
      break;
    }
    if (lt > i) appendText(stack, decodeEntities(text.slice(i, lt)));
    if (text.startsWith('<!--', lt)) {
      i = skipPast(text, lt + 4, '-->');
    } else if (text.startsWith('<![CDATA[', lt)) {
      const end = text.indexOf(']]>', lt + 9);
      if (end < 0) return null;
      appendText(stack, text.slice(lt + 9, end));
      i = end + 3;
    } else if (text.startsWith('<?', lt)) {
      i = skipPast(text, lt + 2, '?>');
    } else if (text.startsWith('<!', lt)) {
      i = skipDeclaration(text, lt + 2);
    } else if (text.startsWith('</', lt)) {
      const end = text.indexOf('>', lt + 2);
      if (end < 0) return null;
      const name = text.slice(lt + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) return null;
      i = end + 1;
    } else {
      const tag = readTag(text, lt + 1);
      if (!tag) return null;
      const element: XmlElement = { name: tag.name, attributes: tag.attributes, children: [], text: '' };
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(element);
      else if (root === null) root = element;
      else return null; // a second root element
      if (!tag.selfClosing) {
        if (stack.length >= MAX_DEPTH) return null;
        stack.push(element);
      }
      i = tag.end;
    }
    if (i < 0) return null;
  }
  return stack.length === 0 ? root : null;
}

/** Every descendant element named `name`, in document order. */
export function descendantsNamed(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (node: XmlElement) => {
    for (const child of node.children) {
      if (child.name === name) found.push(child);
      visit(child);
    }
  };
  visit(element);
  return found;
}

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref] ?? whole;
  });
}

function appendText(stack: XmlElement[], text: string): void {
  const top = stack[stack.length - 1];
  if (top) top.text += text;
}

function skipPast(text: string, from: number, marker: string): number {
  const end = text.indexOf(marker, from);
  return end < 0 ? -1 : end + marker.length;
}

// <!DOCTYPE …> may carry an internal subset in brackets; it is skipped, never interpreted.
function skipDeclaration(text: string, from: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === '>' && depth <= 0) return i + 1;
  }
  return -1;
}

interface Tag {
  name: string;
  attributes: Record<string, string>;
  selfClosing: boolean;
  /** Index just past the closing `>`. */
  end: number;
}

const NAME = /[^\s/>=]/;

function readTag(text: string, start: number): Tag | null {
  let i = start;
  while (i < text.length && NAME.test(text[i]!)) i++;
  const name = text.slice(start, i);
  if (name === '') return null;
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) return null;
    if (text[i] === '>') return { name, attributes, selfClosing: false, end: i + 1 };
    if (text.startsWith('/>', i)) return { name, attributes, selfClosing: true, end: i + 2 };
    const nameStart = i;
    while (i < text.length && NAME.test(text[i]!)) i++;
    const attribute = text.slice(nameStart, i);
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (attribute === '' || text[i] !== '=') return null;
    i++;
    while (i < text.length && /\s/.test(text[i]!)) i++;
    const quote = text[i];
    if (quote !== '"' && quote !== "'") return null;
    const close = text.indexOf(quote, i + 1);
    if (close < 0) return null;
    attributes[attribute] = decodeEntities(text.slice(i + 1, close));
    i = close + 1;
  }
}
