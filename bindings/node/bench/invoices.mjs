// Deterministic invoice rows, flat and nested (the bench corpus).
const STATUS = ['paid', 'pending', 'overdue'];
const CUR = ['EUR', 'USD', 'GBP', 'JPY'];

export function flatInvoice(i) {
  return {
    id: `INV-${String(i + 1).padStart(7, '0')}`,
    client: `Client ${(i * 31) % 997}`,
    amount_cents: (i * 7919) % 1000000,
    currency: CUR[i % 4],
    status: STATUS[i % 3],
    issued_at: `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    paid: i % 3 === 0,
    rate: ((i % 1000) / 8) + 0.5,
  };
}

export function nestedInvoice(i) {
  return {
    id: `INV-${String(i + 1).padStart(7, '0')}`,
    client: { name: `Client ${(i * 31) % 997}`, email: `billing${i % 997}@example.com`, vip: i % 11 === 0 },
    amount_cents: (i * 7919) % 1000000,
    currency: CUR[i % 4],
    status: STATUS[i % 3],
    lines: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ sku: `SKU-${(i + j) % 5000}`, qty: 1 + j, note: j === 1 ? 'rush, today' : null })),
    tags: i % 2 ? ['a', 'b'] : [],
  };
}

export function invoices(n, kind) {
  const f = kind === 'nested' ? nestedInvoice : flatInvoice;
  return Array.from({ length: n }, (_, i) => f(i));
}
