'use strict';
// The JSON event tokenizer behind the streaming decoders.

// The JSON events of @toon-format/toon's streaming decoders, from the engine's compact JSON of
// the document (keys in document order, which JSON.parse would not keep for integer-like
// keys). The document is decoded whole first: an error is thrown before the first event.
function* jsonEvents(json) {
  let i = 0;
  const stack = []; // 'o' or 'a' per open container
  while (i < json.length) {
    const c = json[i];
    if (c === ',' || c === ':') {
      i++;
    } else if (c === '{') {
      stack.push('o');
      yield { type: 'startObject' };
      i++;
    } else if (c === '}') {
      stack.pop();
      yield { type: 'endObject' };
      i++;
    } else if (c === '[') {
      stack.push('a');
      const length = arrayLength(json, i);
      yield { type: 'startArray', length };
      i++;
    } else if (c === ']') {
      stack.pop();
      yield { type: 'endArray' };
      i++;
    } else if (c === '"') {
      const end = stringEnd(json, i);
      const value = JSON.parse(json.slice(i, end));
      i = end;
      if (stack[stack.length - 1] === 'o' && json[i] === ':') yield { type: 'key', key: value };
      else yield { type: 'primitive', value };
    } else {
      let end = i;
      while (end < json.length && !',]}'.includes(json[end])) end++;
      yield { type: 'primitive', value: JSON.parse(json.slice(i, end)) };
      i = end;
    }
  }
}

function stringEnd(json, i) {
  let j = i + 1;
  while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
  return j + 1;
}

// The element count of the array opening at `i` (a scan to its closing bracket).
function arrayLength(json, i) {
  let depth = 0;
  let n = 0;
  let any = false;
  for (let j = i + 1; j < json.length; j++) {
    const c = json[j];
    if (c === '"') {
      j = stringEnd(json, j) - 1;
      if (depth === 0) any = true;
    } else if (c === '[' || c === '{') {
      if (depth === 0) any = true;
      depth++;
    } else if (c === ']' || c === '}') {
      if (depth === 0) return any ? n + 1 : 0;
      depth--;
    } else if (c === ',' && depth === 0) {
      n++;
    } else if (depth === 0) {
      any = true;
    }
  }
  return n;
}

module.exports = { jsonEvents };
