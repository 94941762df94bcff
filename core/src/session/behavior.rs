//! Per-party behaviour summaries and concession tracking (SPEC §5.4, §9.6.2).
//!
//! Matches the reference SDK's `BehaviorRecord` and `Session._compute_concession`: for each
//! offer or counter, the concession is the mean over terms present in both this and the
//! party's previous offer, with numeric `value`s, of `|current - previous| / |previous|`
//! (terms whose previous value is 0 are skipped). A positive concession increments
//! `concessions` and updates the running mean `concession_magnitude`. Only the previous
//! offer's numeric terms are remembered (at most `T`), so the summary has a fixed size.

use heapless::Vec;

use super::MessageType;
use crate::digest::Sha256Sink;
use crate::json::{Kind, Str, Value};

/// A term identifier, kept as the first 16 bytes of SHA-256 of its decoded name.
pub type TermKey = [u8; 16];

/// The behaviour summary of one party.
#[derive(Clone, Debug, PartialEq)]
pub struct Behavior<const T: usize> {
    /// Offers and counters sent.
    pub offers_made: u32,
    /// Offers that moved at least one numeric term.
    pub concessions: u32,
    /// Running mean of the concession of those offers.
    pub concession_magnitude: f64,
    /// `negotiate.signal` messages sent.
    pub signals_shared: u32,
    /// `negotiate.constrain` messages sent.
    pub constraints_declared: u32,
    /// Constraints violated (the SDK never counts any; kept for the record shape).
    pub constraints_violated: u32,
    /// Whether any message carried a non-empty `reasoning`.
    pub reasoning_provided: bool,
    /// Whether the party withdrew.
    pub withdrawal: bool,
    /// Mean response time (the SDK never measures it; kept for the record shape).
    pub response_time_avg_seconds: f64,
    last_terms: Vec<(TermKey, f64), T>,
    has_last_offer: bool,
    /// Numeric terms beyond `T` in one offer, which the summary could not remember.
    pub terms_dropped: u32,
}

impl<const T: usize> Default for Behavior<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const T: usize> Behavior<T> {
    /// An empty record.
    #[must_use]
    pub const fn new() -> Self {
        Behavior {
            offers_made: 0,
            concessions: 0,
            concession_magnitude: 0.0,
            signals_shared: 0,
            constraints_declared: 0,
            constraints_violated: 0,
            reasoning_provided: false,
            withdrawal: false,
            response_time_avg_seconds: 0.0,
            last_terms: Vec::new(),
            has_last_offer: false,
            terms_dropped: 0,
        }
    }

    pub(super) fn record(&mut self, ty: MessageType, msg: Value<'_>) {
        match ty {
            MessageType::Offer | MessageType::Counter => {
                self.offers_made += 1;
                let terms = msg.get("body").and_then(|b| b.get("terms")).filter(|t| t.kind() == Kind::Object);
                // The SDK only remembers and compares non-empty `terms` objects.
                if let Some(terms) = terms.filter(|t| !t.is_empty()) {
                    if self.has_last_offer {
                        let c = self.concession(terms);
                        if c > 0.0 {
                            self.concessions += 1;
                            let n = f64::from(self.concessions);
                            self.concession_magnitude = (self.concession_magnitude * (n - 1.0) + c) / n;
                        }
                    }
                    self.remember(terms);
                    self.has_last_offer = true;
                }
            }
            MessageType::Signal => self.signals_shared += 1,
            MessageType::Constrain => self.constraints_declared += 1,
            MessageType::Withdraw => self.withdrawal = true,
            _ => {}
        }
        if msg.get("reasoning").is_some_and(is_truthy) {
            self.reasoning_provided = true;
        }
    }

    /// Mean relative movement of numeric terms present in both offers.
    fn concession(&self, terms: Value<'_>) -> f64 {
        let mut sum = 0.0;
        let mut n = 0u32;
        // Iterate the previous offer's terms in its order, as the SDK iterates its dict.
        for (key, prev) in &self.last_terms {
            if *prev == 0.0 {
                continue;
            }
            let current = terms.members().find(|(k, _)| term_key(*k) == *key).and_then(|(_, v)| numeric_value(v));
            if let Some(cur) = current {
                sum += (cur - prev).abs() / prev.abs();
                n += 1;
            }
        }
        if n == 0 {
            0.0
        } else {
            sum / f64::from(n)
        }
    }

    fn remember(&mut self, terms: Value<'_>) {
        self.last_terms.clear();
        for (k, v) in terms.members() {
            if let Some(x) = numeric_value(v) {
                if self.last_terms.push((term_key(k), x)).is_err() {
                    self.terms_dropped += 1;
                }
            }
        }
    }
}

/// The term's numeric `value`. Like Python's `isinstance(v, (int, float))`, booleans count
/// as 1 and 0.
fn numeric_value(term: Value<'_>) -> Option<f64> {
    let v = term.get("value")?;
    match v.kind() {
        Kind::Number => v.as_f64(),
        Kind::True => Some(1.0),
        Kind::False => Some(0.0),
        _ => None,
    }
}

fn term_key(name: Str<'_>) -> TermKey {
    let mut h = Sha256Sink::new();
    let _ = super::write_decoded(name, &mut h);
    let d = h.finish();
    let mut k = [0u8; 16];
    k.copy_from_slice(d.0.get(..16).unwrap_or(&[0; 16]));
    k
}

/// Python truthiness of a JSON value, as `if message.get("reasoning")` tests it.
pub(super) fn is_truthy(v: Value<'_>) -> bool {
    match v.kind() {
        Kind::Null | Kind::False => false,
        Kind::True => true,
        Kind::Number => v.as_f64().is_some_and(|f| f != 0.0),
        Kind::String => v.as_str().is_some_and(|s| !s.raw().is_empty()),
        Kind::Array | Kind::Object => !v.is_empty(),
    }
}
