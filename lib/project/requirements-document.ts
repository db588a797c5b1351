// Reading the requirements document ralph-import converts. Markdown, plain text and JSON are
// read as text; other formats (PDF, Word …) are refused with a way to convert them, because
// no maintained pure-JS parser ships with ralph and binary bytes must not reach the prompt.

import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';

export type RequirementsDocumentResult = { ok: true; text: string } | { ok: false; message: string; hint?: string };

const TEXT_EXTENSIONS = new Set(['', '.md', '.markdown', '.txt', '.text', '.json']);

export function readRequirementsDocument(path: string): RequirementsDocumentResult {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return { ok: false, message: `Source file does not exist: ${path}` };
  }
  if (!isFile) return { ok: false, message: `Source is not a file: ${path}` };
  const extension = extname(path).toLowerCase();
  if (!TEXT_EXTENSIONS.has(extension)) {
    return {
      ok: false,
      message: `Unsupported document format "${extension}": ralph-import reads .md, .txt and .json files`,
      hint: conversionHint(path, extension),
    };
  }
  const bytes = readFileSync(path);
  if (bytes.includes(0)) {
    return { ok: false, message: `${path} looks like a binary file, not text`, hint: 'convert it to Markdown or plain text first' };
  }
  return { ok: true, text: bytes.toString('utf8') };
}

function conversionHint(path: string, extension: string): string {
  if (extension === '.pdf') return `convert it first, e.g. pdftotext "${path}" requirements.txt`;
  return `convert it first, e.g. pandoc "${path}" -t gfm -o requirements.md`;
}
