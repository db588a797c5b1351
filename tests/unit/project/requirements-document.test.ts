import { afterEach, describe, expect, it } from 'vitest';
import { readRequirementsDocument } from '../../../lib/project/requirements-document.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

describe('readRequirementsDocument', () => {
  it('reads Markdown, text, JSON and extension-less files as text', () => {
    project = tmpProject({ 'a.md': '# A', 'b.txt': 'B', 'c.json': '{"c":1}', PRD: 'plain' });
    expect(readRequirementsDocument(project.path('a.md'))).toEqual({ ok: true, text: '# A' });
    expect(readRequirementsDocument(project.path('b.txt'))).toEqual({ ok: true, text: 'B' });
    expect(readRequirementsDocument(project.path('c.json'))).toEqual({ ok: true, text: '{"c":1}' });
    expect(readRequirementsDocument(project.path('PRD'))).toEqual({ ok: true, text: 'plain' });
  });

  it('refuses other formats with a conversion hint', () => {
    project = tmpProject({ 'spec.pdf': '%PDF-1.7', 'spec.docx': 'PK' });
    const pdf = readRequirementsDocument(project.path('spec.pdf'));
    expect(pdf).toMatchObject({ ok: false, message: expect.stringContaining('Unsupported document format ".pdf"') });
    expect(pdf.ok === false && pdf.hint).toContain('pdftotext');
    const docx = readRequirementsDocument(project.path('spec.docx'));
    expect(docx.ok === false && docx.hint).toContain('pandoc');
  });

  it('refuses binary content and missing files', () => {
    project = tmpProject({ 'bin.md': 'a\u0000b' });
    expect(readRequirementsDocument(project.path('bin.md'))).toMatchObject({ ok: false, message: expect.stringContaining('binary') });
    expect(readRequirementsDocument(project.path('nope.md'))).toMatchObject({ ok: false, message: expect.stringContaining('does not exist') });
  });
});
