// Compiled by test/types.test.js (tsc --noEmit, strict): the declarations in index.d.ts
// describe how a TypeScript MCP server uses the package.
import {
  DEFAULT_DELIMITER, DELIMITERS, META, ToonDecodeError, decode, decodeFromLines, encode, encodeJson, encodeJsonAsync,
  encodeLines, present, presentAsync, presentStream, toolSchema, wrap, type CallToolResult, type EncodeOptions, type JsonValue,
  type PresenterFile, type ToolwireMeta, rawString, escapeString, decodeStreamSync, decodeStream, type JsonStreamEvent,
} from 'toolwire';

const raw: string = encode({ a: 1 }, { replacer: (_k, v) => (typeof v === 'number' ? rawString(`"${escapeString(String(v))}"`) : v) });
const events: JsonStreamEvent[] = Array.from(decodeStreamSync(['a: 1']));
const later2: AsyncIterable<JsonStreamEvent> = decodeStream(['a: 1']);
void raw; void events; void later2;

const opts: EncodeOptions = { delimiter: DELIMITERS.pipe, indentSize: 4, replacer: (k, v) => (k === 'secret' ? undefined : v) };
const text: string = encode({ a: 1, when: new Date() }, opts);
const lines: string[] = Array.from(encodeLines([1, 2]));
const back: JsonValue = decode(text, { strict: false, indentSize: 4 });
const back2: JsonValue = decodeFromLines(lines);
const fast: string = encodeJson(Buffer.from('[{"a":1}]'), { delimiter: DEFAULT_DELIMITER });
const later: Promise<string> = encodeJsonAsync('[1]');

try {
  decode('a[2]: 1');
} catch (e) {
  if (e instanceof ToonDecodeError) {
    const line: number | undefined = e.line;
    const source: string | undefined = e.source;
    void line; void source;
  }
}

const presenter: PresenterFile = { name: 'Invoice', select: true, schema: { type: 'object', properties: { id: { type: 'string' } } } };
const result: CallToolResult = present([{ id: 'A' }], presenter, { select: ['id'], format: 'toon', limit: 10, tokenBudget: 500 });
const meta: ToolwireMeta = present(null)[META];
const asyncResult: Promise<CallToolResult> = presentAsync(Buffer.from('[]'), JSON.stringify(presenter));
const schema = toolSchema(presenter, { name: 'invoices', description: 'List invoices' });
const inputSchema: Record<string, unknown> = schema.inputSchema.properties;
const callback: (args: { status?: string; _select?: string[] }, extra: unknown) => Promise<CallToolResult> =
  wrap(async ({ status }: { status?: string }) => [{ id: status ?? 'A' }], { presenter });

const stream: { pipe: unknown } = presentStream([1], null, {}, { id: 1 });
void [stream, back, back2, fast, later, result, meta, asyncResult, inputSchema, callback];
