// Deterministic invoice rows, flat and nested (the bench corpus); `text: 'mixed'` gives every
// row non-ASCII strings (accents, CJK, emoji in turn), for the paths that transcode.
const STATUS = ['paid', 'pending', 'overdue'];
const CUR = ['EUR', 'USD', 'GBP', 'JPY'];

const NAMES = ['Société Générale', '株式会社 東京', 'Café 🍰 Zoë', 'Müller & Söhne'];
const clientName = (i, text) => (text === 'mixed' ? `${NAMES[i % 4]} ${(i * 31) % 997}` : `Client ${(i * 31) % 997}`);

export function flatInvoice(i, text) {
  return {
    id: `INV-${String(i + 1).padStart(7, '0')}`,
    client: clientName(i, text),
    amount_cents: (i * 7919) % 1000000,
    currency: CUR[i % 4],
    status: STATUS[i % 3],
    issued_at: `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    paid: i % 3 === 0,
    rate: ((i % 1000) / 8) + 0.5,
  };
}

export function nestedInvoice(i, text) {
  return {
    id: `INV-${String(i + 1).padStart(7, '0')}`,
    client: { name: clientName(i, text), email: `billing${i % 997}@example.com`, vip: i % 11 === 0 },
    amount_cents: (i * 7919) % 1000000,
    currency: CUR[i % 4],
    status: STATUS[i % 3],
    lines: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ sku: `SKU-${(i + j) % 5000}`, qty: 1 + j, note: j === 1 ? (text === 'mixed' ? 'eilig, heute — 至急' : 'rush, today') : null })),
    tags: i % 2 ? ['a', 'b'] : [],
  };
}

export function invoices(n, kind, text = 'ascii') {
  const f = kind === 'nested' ? nestedInvoice : flatInvoice;
  return Array.from({ length: n }, (_, i) => f(i, text));
}
