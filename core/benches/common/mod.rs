//! A deterministic corpus of Concordia negotiation messages for the benchmarks.
//!
//! Each message is a signed-envelope-shaped JSON object (SPEC §4.1) of about 2 KB: nested
//! `terms`, line items, conditions, free-text `reasoning` with some non-ASCII characters
//! and a few escapes, integers and decimals, arrays, and a base64url `signature`. Member
//! names are in the order a producer writes them (not sorted), compact (no whitespace),
//! as they travel on the wire. The same seed always gives the same bytes.
#![allow(dead_code)]

use std::fmt::Write as _;

/// xorshift64*: small, deterministic, good enough to vary the corpus.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const TYPES: &[&str] = &[
    "negotiate.offer",
    "negotiate.counter_offer",
    "negotiate.accept",
    "negotiate.inquire",
    "negotiate.propose_conditional",
];
const CITIES: &[&str] = &["Zürich", "São Paulo", "München", "Kraków", "東京", "Montréal", "Reykjavík", "Austin"];
const ITEMS: &[&str] = &[
    "Refurbished ThinkPad X1 Carbon (Gen 9), 16 GB",
    "Café-grade espresso grinder — burr set",
    "Ergonomic chair, \\\"executive\\\" line",
    "USB-C dock, 2× DisplayPort",
    "Annual support plan (24/7, français/deutsch)",
    "Licence: analytics seat ✓",
    "Shipping crate 120×80 cm",
];
const PHRASES: &[&str] = &[
    "The counterparty's last offer was within 4% of our reservation price.",
    "Prefer earlier delivery over price; the warehouse in Zürich closes on the 28th.",
    "Bundle the support plan to keep the unit price under the budget ceiling.",
    "Delivery window flexible\\nbut payment terms are not.",
    "Accept if the deposit stays at or below 15 % — otherwise counter.",
    "Die Lieferung muss vor Monatsende erfolgen; Preis ist zweitrangig.",
    "Quality \\\"high\\\" was requested explicitly in round 2 🤝.",
];
const CURRENCIES: &[&str] = &["USD", "EUR", "CHF", "JPY", "BRL"];
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn hex(r: &mut Rng, n: usize, out: &mut String) {
    for _ in 0..n {
        out.push(char::from(b"0123456789abcdef"[r.below(16) as usize]));
    }
}

fn b64(r: &mut Rng, n: usize, out: &mut String) {
    for _ in 0..n {
        out.push(char::from(B64[r.below(64) as usize]));
    }
}

fn money(r: &mut Rng) -> String {
    // Mix of integer cents-free amounts and two-decimal prices.
    if r.below(3) == 0 {
        format!("{}", 100 + r.below(50_000))
    } else {
        format!("{}.{:02}", 1 + r.below(9_999), 1 + r.below(99))
    }
}

/// One message of roughly `target` bytes (the body grows line items until it is reached).
pub fn message(seed: u64, target: usize) -> String {
    let mut r = Rng::new(seed);
    let mut s = String::with_capacity(target + 512);
    let ty = r.pick(TYPES);
    write!(s, "{{\"concordia\":\"0.1.0\",\"type\":\"{ty}\",\"id\":\"msg_").unwrap();
    hex(&mut r, 24, &mut s);
    s.push_str("\",\"session_id\":\"ses_");
    hex(&mut r, 24, &mut s);
    write!(
        s,
        "\",\"timestamp\":\"2026-0{}-{:02}T{:02}:{:02}:{:02}Z\"",
        1 + r.below(9),
        1 + r.below(28),
        r.below(24),
        r.below(60),
        r.below(60)
    )
    .unwrap();
    s.push_str(",\"from\":{\"agent_id\":\"did:concordia:agent:seller-");
    hex(&mut r, 8, &mut s);
    s.push_str("\",\"principal_id\":\"org:acme-gmbh\"},\"to\":[{\"agent_id\":\"did:concordia:agent:buyer-");
    hex(&mut r, 8, &mut s);
    s.push_str("\"}],\"prev_hash\":\"sha256:");
    hex(&mut r, 64, &mut s);
    s.push_str("\",\"in_reply_to\":\"msg_");
    hex(&mut r, 24, &mut s);
    let cur = r.pick(CURRENCIES);
    write!(
        s,
        "\",\"body\":{{\"terms\":{{\"price\":{{\"value\":{},\"currency\":\"{cur}\"}},\"quantity\":{},\
         \"delivery\":{{\"location\":{{\"city\":\"{}\",\"country_code\":\"{}\"}},\"window_days\":{},\
         \"earliest\":\"2026-07-{:02}\",\"incoterm\":\"DAP\"}},\"payment\":{{\"method\":\"{}\",\"net_days\":{},\
         \"deposit_pct\":{}}},\"warranty_months\":{},\"returns_allowed\":{}",
        money(&mut r),
        1 + r.below(500),
        r.pick(CITIES),
        r.pick(&["CH", "BR", "DE", "PL", "JP", "CA", "IS", "US"]),
        1 + r.below(30),
        1 + r.below(28),
        r.pick(&["wire", "card", "escrow"]),
        r.pick(&["0", "15", "30", "45", "60"]),
        r.pick(&["0.1", "0.15", "0.2", "0.25", "0.125", "1e-3"]),
        r.below(37),
        if r.below(2) == 0 { "true" } else { "false" },
    )
    .unwrap();
    s.push_str(",\"items\":[");
    let mut first = true;
    let body_budget = target.saturating_sub(420);
    let mut n = 0;
    while s.len() < body_budget || n < 2 {
        if !first {
            s.push(',');
        }
        first = false;
        n += 1;
        write!(
            s,
            "{{\"sku\":\"SKU-{:05}\",\"description\":\"{}\",\"unit_price\":{},\"qty\":{},\"tags\":[\"{}\",\"{}\"],\
             \"weight_kg\":{}.{},\"discount\":null}}",
            r.below(100_000),
            r.pick(ITEMS),
            money(&mut r),
            1 + r.below(40),
            r.pick(&["refurb", "new", "bundle", "priority"]),
            r.pick(&["eu", "intl", "domestic"]),
            r.below(60),
            r.below(10),
        )
        .unwrap();
    }
    write!(
        s,
        "],\"conditions\":[\"valid for {} hours\",\"subject to credit check\"]}},\"expires_at\":\"2026-09-30T23:59:59Z\",\
         \"round\":{}}},\"reasoning\":\"{}\",\"ttl\":{},\"signature\":\"",
        1 + r.below(72),
        1 + r.below(12),
        r.pick(PHRASES),
        60 * (1 + r.below(1440)),
    )
    .unwrap();
    b64(&mut r, 86, &mut s);
    s.push_str("==\"}");
    s
}

/// `count` messages of about `size` bytes each, concatenated size about `count * size`.
pub fn corpus(count: usize, size: usize) -> Vec<String> {
    (0..count as u64).map(|i| message(0xC0DC_0D1A + i, size)).collect()
}

/// Total input bytes.
pub fn total_len(c: &[String]) -> usize {
    c.iter().map(String::len).sum()
}
