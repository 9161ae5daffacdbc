import { createHash } from 'node:crypto';
import type { JsonSchema, OpenApiDocument, OpenApiOperation, OpenApiResponse } from './document.js';

/**
 * /api-docs: the OpenAPI document as one self-contained HTML page (inline CSS, no script, nothing
 * fetched: the service may run where there is no internet).
 */

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** descriptions use `code` spans, as in the contract */
const prose = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

const schemaAnchor = (name: string) => `schema-${name}`;

/** pretty JSON, with every reference to a named schema as a link to it */
const schemaHtml = (schema: JsonSchema | undefined) =>
  schema === undefined
    ? '<em>raw bytes</em>'
    : `<pre>${escapeHtml(JSON.stringify(schema, null, 2)).replace(
        /&quot;#\/components\/schemas\/([A-Za-z0-9_.-]+)&quot;/g,
        (_m, name: string) => `<a href="#${schemaAnchor(name)}">${name}</a>`,
      )}</pre>`;

const contentHtml = (content: Record<string, { schema?: JsonSchema }> | undefined) =>
  content === undefined
    ? '<em>empty body</em>'
    : Object.entries(content)
        .map(([type, media]) => `<div class="media"><div><code>${escapeHtml(type)}</code></div>${schemaHtml(media.schema)}</div>`)
        .join('');

function responseHtml(status: string, response: OpenApiResponse | { $ref: string }, doc: OpenApiDocument): string {
  const resolved = '$ref' in response ? (doc.components.responses[response.$ref.split('/').pop() ?? ''] as OpenApiResponse) : response;
  const headers = Object.entries(resolved.headers ?? {})
    .map(([name, h]) => `<div>header <code>${escapeHtml(name)}</code>: ${prose(h.description)}</div>`)
    .join('');
  return `<tr><td class="status">${escapeHtml(status)}</td><td>${prose(resolved.description)}${headers}</td><td>${contentHtml(resolved.content)}</td></tr>`;
}

function operationHtml(method: string, path: string, op: OpenApiOperation, doc: OpenApiDocument): string {
  const parameters = op.parameters.length
    ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>description</th><th>schema</th></tr>${op.parameters
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td>${prose(p.description)}</td><td>${schemaHtml(p.schema)}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  const body = op.requestBody
    ? `<h4>Request body${op.requestBody.required ? '' : ' (optional)'}</h4><p>${prose(op.requestBody.description)}</p>${contentHtml(op.requestBody.content)}`
    : '';
  const responses = Object.entries(op.responses)
    .map(([status, r]) => responseHtml(status, r, doc))
    .join('');
  return `<section class="operation" id="op-${escapeHtml(op.operationId)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${escapeHtml(path)}</code></h3>
<p class="summary">${prose(op.summary)}${op.security ? ' <span class="auth">bearer token</span>' : ''}</p>
<p>${prose(op.description)}</p>
${parameters}${body}
<h4>Responses</h4><table><tr><th>status</th><th>description</th><th>body</th></tr>${responses}</table>
</section>`;
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;color:#1d2330}
h1{margin-bottom:0}h2{border-bottom:2px solid #d8dde6;padding-bottom:.2em;margin-top:2em}
code,pre{font:13px/1.35 ui-monospace,monospace}pre{background:#f5f7fa;padding:.5em;margin:.2em 0;overflow-x:auto;max-height:22em}
table{border-collapse:collapse;width:100%;margin:.3em 0}td,th{border:1px solid #d8dde6;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#eef1f5}.status{font-weight:bold;width:4em}
.operation{border:1px solid #d8dde6;border-radius:6px;padding:.2em 1em .8em;margin:1em 0}
.method{display:inline-block;min-width:4.2em;text-align:center;border-radius:4px;color:#fff;padding:.1em .4em;font-size:.85em}
.get{background:#2f7d32}.post{background:#1f5fa8}.delete{background:#b3261e}.put,.patch{background:#8a5a00}
.auth{background:#fff4d6;border:1px solid #e0c060;border-radius:4px;padding:0 .4em;font-size:.85em}
.toc li{list-style:none}.toc code{margin-left:.4em}.media code{font-weight:bold}
`;

/**
 * The page's Content-Security-Policy: its one inline style (by its hash) and nothing else, no
 * script at all; it is served on the dashboard's origin.
 */
export const API_DOCS_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

export function apiDocsPage(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
  const tags = [...new Set(operations.map((o) => o.op.tags[0] ?? ''))];
  const byTag = tags.map((tag) => ({ tag, ops: operations.filter((o) => (o.op.tags[0] ?? '') === tag) }));
  const toc = byTag
    .map(
      ({ tag, ops }) =>
        `<li><strong>${escapeHtml(tag)}</strong><ul>${ops
          .map(
            ({ path, method, op }) =>
              `<li><a href="#op-${escapeHtml(op.operationId)}"><span class="method ${method}">${method.toUpperCase()}</span><code>${escapeHtml(path)}</code></a> ${prose(op.summary)}</li>`,
          )
          .join('')}</ul></li>`,
    )
    .join('');
  const sections = byTag
    .map(({ tag, ops }) => `<h2>${escapeHtml(tag)}</h2>${ops.map(({ path, method, op }) => operationHtml(method, path, op, doc)).join('\n')}`)
    .join('\n');
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, schema]) => `<section id="${schemaAnchor(name)}"><h3>${escapeHtml(name)}</h3>${schemaHtml(schema)}</section>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} ${escapeHtml(doc.info.version)}: API</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(doc.info.title)}</h1>
<p>version ${escapeHtml(doc.info.version)} · OpenAPI ${escapeHtml(doc.openapi)} · <a href="openapi.json">openapi.json</a></p>
<p>${prose(doc.info.description)}</p>
<h2>Operations</h2><ul class="toc">${toc}</ul>
${sections}
<h2>Schemas</h2>
${schemas}
</body></html>
`;
}
