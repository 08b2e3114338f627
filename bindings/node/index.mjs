// ESM entry: the same module as the CommonJS entry (one addon instance, one set of classes).
import toolwire from './index.js';

export const {
  encode,
  encodeLines,
  decode,
  decodeFromLines,
  DELIMITERS,
  DEFAULT_DELIMITER,
  ToonDecodeError,
  decodeStream,
  decodeStreamSync,
  rawString,
  escapeString,
  RawString,
  encodeJson,
  encodeJsonAsync,
  present,
  presentAsync,
  presentStream,
  toolSchema,
  wrap,
  compilePresenter,
  ToolwireError,
  META,
} = toolwire;
export default toolwire;
