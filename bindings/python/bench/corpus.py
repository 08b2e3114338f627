"""The deterministic invoice corpus of benches/src/lib.rs, byte for byte, in Python.

Flat rows ``{id, customer, amount_cents, currency, paid, issued_at}``; nested rows add
``lines``: three ``{sku, qty, unit_cents}``. A fixed-seed xorshift64* generator, so every
run sees the same bytes as the Rust benches.
"""

from __future__ import annotations

import json

CUSTOMERS = [
    "Acme Corp", "Globex", "Initech", "Umbrella Holdings", "Acme, Inc.", "Stark Industries",
    "Wayne Enterprises", '"Quoted" Traders', "Hooli", "Zoë Café", "Vandelay Industries",
    "Soylent: Foods", "Tyrell Corporation", "日本商事", "Cyberdyne Systems", "Wonka Industries",
]
CURRENCIES = ["USD", "EUR", "GBP", "JPY"]
MASK = (1 << 64) - 1


class _Rng:
    def __init__(self) -> None:
        self.s = 0x9E3779B97F4A7C15

    def below(self, n: int) -> int:
        s = self.s
        s ^= s >> 12
        s = (s ^ (s << 25)) & MASK
        s ^= s >> 27
        self.s = s
        return ((s * 0x2545F4914F6CDD1D) & MASK) % n


# The ASCII corpus: the same rows with the two non-ASCII names spelt in ASCII.
ASCII_CUSTOMERS = [
    {"Zoë Café": "Zoe Cafe", "日本商事": "Nihon Shoji"}.get(c, c) for c in CUSTOMERS
]


def invoices_json(rows: int, nested: bool = False, ascii: bool = False) -> bytes:
    """``rows`` invoices as JSON; ``ascii``: the customer names all ASCII (the default
    corpus, byte for byte the Rust benches', has two that are not)."""
    rng = _Rng()
    parts = []
    customers = ASCII_CUSTOMERS if ascii else CUSTOMERS
    for i in range(rows):
        customer = json.dumps(customers[rng.below(16)], ensure_ascii=False)
        amount = 100 + rng.below(5_000_000)
        currency = CURRENCIES[rng.below(4)]
        paid = "false" if rng.below(3) == 0 else "true"
        day = rng.below(365)
        month, dom = 1 + day // 31 % 12, 1 + day % 28
        hh, mm = rng.below(24), rng.below(60)
        row = (
            f'{{"id":"INV-{i + 1:07}","customer":{customer},"amount_cents":{amount},'
            f'"currency":"{currency}","paid":{paid},'
            f'"issued_at":"2026-{month:02}-{dom:02}T{hh:02}:{mm:02}:00Z"'
        )
        if nested:
            lines = []
            for _ in range(3):
                sku = 1000 + rng.below(9000)
                qty = 1 + rng.below(20)
                unit = 50 + rng.below(100_000)
                lines.append(f'{{"sku":"SKU-{sku}","qty":{qty},"unit_cents":{unit}}}')
            row += ',"lines":[' + ",".join(lines) + "]"
        parts.append(row + "}")
    return ("[" + ",".join(parts) + "]").encode()
