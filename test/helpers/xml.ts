/**
 * A strict well-formedness check for generated XML (SVG charts): one root element, tags that nest and close,
 * quoted and distinct attributes without '<', and no bare '&' (only the five named entities and numeric
 * references). No DTDs, comments, CDATA or processing instructions: generated charts have none.
 */

/** Throws unless `xml` is one well-formed XML element (tags nest and close, attributes quoted, entities known). */
export function checkWellFormed(xml: string): void {
  const stack: string[] = [];
  const name = /^[A-Za-z_:][\w:.-]*/;
  const checkText = (text: string, at: number): void => {
    const bad = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.exec(text);
    if (bad !== null) throw new Error(`bare & at ${at + bad.index}`);
  };
  let i = 0;
  let roots = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = lt < 0 ? xml.slice(i) : xml.slice(i, lt);
    if (stack.length === 0 && text.trim() !== '') throw new Error(`text outside the root at ${i}`);
    checkText(text, i);
    if (lt < 0) break;
    i = lt + 1;
    if (xml[i] === '/') {
      const m = name.exec(xml.slice(i + 1));
      if (m === null) throw new Error(`bad closing tag at ${i}`);
      if (stack.pop() !== m[0]) throw new Error(`</${m[0]}> closes another element at ${i}`);
      i += 1 + m[0].length;
      while (/\s/.test(xml[i])) i++;
      if (xml[i] !== '>') throw new Error(`unterminated closing tag at ${i}`);
      i++;
      continue;
    }
    const m = name.exec(xml.slice(i));
    if (m === null) throw new Error(`bad tag at ${i}`);
    if (stack.length === 0 && ++roots > 1) throw new Error('more than one root element');
    i += m[0].length;
    const seen = new Set<string>();
    for (;;) {
      const space = /^\s*/.exec(xml.slice(i))?.[0].length ?? 0;
      i += space;
      if (xml.startsWith('/>', i)) {
        i += 2;
        break;
      }
      if (xml[i] === '>') {
        stack.push(m[0]);
        i++;
        break;
      }
      if (space === 0) throw new Error(`attribute without a space before it at ${i}`);
      const attr = name.exec(xml.slice(i));
      if (attr === null || xml[i + attr[0].length] !== '=') throw new Error(`bad attribute at ${i}`);
      if (seen.has(attr[0])) throw new Error(`repeated attribute ${attr[0]} at ${i}`);
      seen.add(attr[0]);
      i += attr[0].length + 1;
      const quote = xml[i];
      if (quote !== '"' && quote !== "'") throw new Error(`unquoted attribute at ${i}`);
      const end = xml.indexOf(quote, i + 1);
      if (end < 0) throw new Error(`unterminated attribute at ${i}`);
      const value = xml.slice(i + 1, end);
      if (value.includes('<')) throw new Error(`< in an attribute at ${i}`);
      checkText(value, i + 1);
      i = end + 1;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  if (roots !== 1) throw new Error('no root element');
}
