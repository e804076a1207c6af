import { SaxesParser } from 'saxes';

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** The element's own text (character data directly inside it). */
  text: string;
}

/** Every element of a document, read by a strict XML 1.0 parser (saxes): it throws on anything not well-formed. */
export function parseXml(xml: string): XmlElement[] {
  const parser = new SaxesParser();
  const elements: XmlElement[] = [];
  const open: XmlElement[] = [];
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    const element = { name: tag.name, attributes: { ...(tag.attributes as Record<string, string>) }, text: '' };
    elements.push(element);
    open.push(element);
  });
  parser.on('text', (text) => {
    if (open.length > 0) open.at(-1)!.text += text;
  });
  parser.on('closetag', () => void open.pop());
  parser.write(xml).close();
  if (failure) throw failure;
  return elements;
}
