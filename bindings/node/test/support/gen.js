'use strict';
// A seeded generator of JavaScript values with every special @toon-format/toon normalises:
// undefined, NaN, ±Infinity, -0, BigInt, Date, toJSON, holes, Set, Map, class instances,
// functions, symbols; strings and keys that hit every quoting rule; uniform rows (tabular
// form), arrays of arrays, nested objects.

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['', 'a', 'Ada', ' ', 'x y', ',', '|', '\t', ':', '"', '\\', '[', ']', '{', '}', '-', '#', '- item',
  'true', 'false', 'null', '05', '1e3', '-3.14', '+1', '0', '.5', '1.', 'é', '日本', '😀', '\n', '\r', '\u0001', '\u007f',
  '\u00a0', '\ufeff', 'a.b', '_k', 'Ünï', 'key with space', 'null ', ' lead', '<b>', '\u2028'];

class Point { constructor() { this.x = 1; } }

function generator(seed) {
  const r = rng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (xs) => xs[int(xs.length)];
  const str = () => {
    let s = '';
    const n = int(4);
    for (let i = 0; i < n; i++) s += pick(PIECES);
    return s;
  };
  const key = () => (r() < 0.6 ? pick(['id', 'name', 'n', 'tags', 'a_b', 'x.y', 'v']) : r() < 0.1 ? pick(['1', '01', '__proto__', '-1', '2']) : str());
  const num = () => pick([0, -0, 1, -1, 42, 3.5, -2.25, 1e21, 1e-7, 123456.789, 2 ** 53 + 2, 0.1 + 0.2, 1e300, 5e-324,
    NaN, Infinity, -Infinity, int(1000), r() * 1000 - 500]);
  const primitive = () => {
    const k = int(20);
    if (k < 6) return str();
    if (k < 11) return num();
    if (k < 13) return r() < 0.5;
    if (k < 14) return null;
    if (k < 15) return undefined;
    if (k < 16) return pick([10n, -7n, 2n ** 70n, -(2n ** 64n), 0n]);
    if (k < 17) return pick([new Date(0), new Date(1e12), new Date(NaN)]);
    if (k < 18) return pick([() => 1, Symbol('s')]);
    if (k < 19) {
      const out = pick(['j', 1, [1, 2], { k: 'v' }, undefined, new Date(5)]);
      return { toJSON: () => out };
    }
    return pick([new Set([1, 'a']), new Map([[1, 'one'], ['k', { a: 1 }]]), new Point(), /re/, new Number(3)]);
  };
  const value = (depth) => {
    const k = depth > 3 ? 0 : int(10);
    if (k < 3) return primitive();
    if (k < 5) { // uniform rows
      const fields = Array.from({ length: 1 + int(3) }, key);
      return Array.from({ length: int(4) }, () => {
        const o = {};
        for (const f of fields) o[f] = r() < 0.85 ? primitive() : value(depth + 1);
        return o;
      });
    }
    if (k < 7) {
      const a = Array.from({ length: int(5) }, () => value(depth + 1));
      if (a.length > 1 && r() < 0.2) delete a[int(a.length)]; // a hole
      return a;
    }
    const o = {};
    const n = int(5);
    for (let i = 0; i < n; i++) o[key()] = value(depth + 1);
    return o;
  };
  return () => value(0);
}

module.exports = { generator, rng };
