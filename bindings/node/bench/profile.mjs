// Where the time of the JS-object paths goes, piece by piece (best of RUNS after gc()):
// `node --expose-gc bench/profile.mjs [flat|nested] [ascii|mixed] [rows]`.
import * as ref from '@toon-format/toon';
import { createRequire } from 'node:module';
import * as tw from '../index.mjs';
import { invoices } from './invoices.mjs';
import { Invoice, best as bestOf } from './presenter.mjs';

const require = createRequire(import.meta.url);
const native = require('../lib/native.js');
const { fastText } = require('../lib/text.js');
const { rowsText, presentRows } = require('../lib/rows.js');

const [kind = 'flat', text = 'ascii', n = '100000'] = process.argv.slice(2);
const RUNS = Number(process.env.RUNS ?? 7);
const best = async (f) => (await bestOf(f, RUNS)).toFixed(1);

const rows = invoices(Number(n), kind, text);
const json = JSON.stringify(rows);
const fast = fastText(json);
const buf = Buffer.from(json);
const out = {};
out['JSON.stringify(rows)'] = await best(() => JSON.stringify(rows));
out['JSON.stringify(rows,null,2)'] = await best(() => JSON.stringify(rows, null, 2));
out['rowsText(rows) (cells)'] = await best(() => rowsText(rows, false) ?? 'not a table of scalars');
out['fastText(json)'] = await best(() => fastText(json));
out['Buffer.from(json)'] = await best(() => Buffer.from(json));
out['native.encodeJson(fastText)'] = await best(() => native.encodeJson(fast, ',', 2));
out['native.encodeJson(buf)'] = await best(() => native.encodeJson(buf, ',', 2));
out['native.presentPlain(fastText) pretty'] = await best(() => native.presentPlain(fast, {}));
out['native.presentPlain(buf) pretty'] = await best(() => native.presentPlain(buf, {}));
out['tw.encode(rows) (the cells\' document)'] = await best(() => tw.encode(rows));
out['  the same through JSON (rowsText, encodeJson)'] = await best(() => native.encodeJson(rowsText(rows, true), ',', 2));
out['ref.encode(rows)'] = await best(() => ref.encode(rows));
out['tw.present(rows) pretty'] = await best(() => tw.present(rows, null));
if (kind === 'flat') {
  // toolwire/presenter's make: the engine call alone (a callback answering nothing), then all.
  const { p } = Invoice._native(false);
  out['presentWith(buf) (presenter, no-op callback)'] = await best(() => p.presentWith(buf, { action: 'Invoice/present' }, () => []));
  out['presentCellsWith(rows as cells) (the same)'] = await best(() => presentRows(rows, (cells) => p.presentCellsWith(cells, { action: 'Invoice/present' }, () => [])));
  out['  the same, built while read (CellsStream)'] = await best(() => presentRows(rows, (cells, stream) => p.presentCellsWith(cells, { action: 'Invoice/present' }, () => [], stream)));
  out['  the cells read alone'] = await best(() => presentRows(rows, () => 0));
  out['Invoice.make(buf).build()'] = await best(() => Invoice.make(buf).build());
  out['Invoice.make(rows).build()'] = await best(() => Invoice.make(rows).build());
}
console.log(`${n} ${kind} ${text}: JSON ${(buf.length / 1e6).toFixed(1)} MB (${fast === json ? 'non-ASCII string' : 'ASCII bytes'})`);
console.table(out);
