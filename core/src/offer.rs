//! Offers (SPEC §6): basic, partial, conditional and bundle, validated from a message body.
//!
//! | kind | body members |
//! |---|---|
//! | basic | `terms` (object of term objects), `complete: true` (optional) |
//! | partial | `terms`, `open_terms` (array of strings), `complete: false` (optional) |
//! | conditional | `conditions`: non-empty array of `{"if": {...}, "then": {...}}` |
//! | bundle | `bundles`: non-empty array of `{"bundle_id", "label", "terms"}`, `select` (optional) |
//!
//! Every kind may carry `offer_id` (string) and `valid_until` (RFC 3339 date-time). A body
//! that mixes kinds, or matches none, is rejected.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::{json, offer::{Offer, OfferKind}};
//!
//! let mut nodes = [json::Node::EMPTY; 32];
//! let body = json::parse(br#"{"offer_id": "off_1", "conditions": [
//!     {"if": {"delivery_method": "local_pickup"}, "then": {"price": {"value": 2000, "currency": "USD"}}},
//!     {"if": {"delivery_method": "shipping"}, "then": {"price": {"value": 2050, "currency": "USD"}}}]}"#,
//!     &mut nodes)?;
//! let offer = Offer::from_body(body.root())?;
//! assert_eq!(offer.kind(), OfferKind::Conditional);
//! assert_eq!(offer.conditions().count(), 2);
//! # Ok(())
//! # }
//! ```

use crate::error::{Error, Result};
use crate::json::{Elements, Kind, Str, Value};
use crate::time::{self, Timestamp};

/// The four offer shapes of SPEC §6.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OfferKind {
    /// §6.1: values for all terms.
    Basic,
    /// §6.2: some terms left open.
    Partial,
    /// §6.3: if/then clauses.
    Conditional,
    /// §6.4: alternative bundles of terms.
    Bundle,
}

/// A validated offer body.
#[derive(Clone, Copy, Debug)]
pub struct Offer<'a> {
    body: Value<'a>,
    kind: OfferKind,
    valid_until: Option<Timestamp>,
}

impl<'a> Offer<'a> {
    /// Validates `body` as one of the four offer kinds.
    ///
    /// # Errors
    /// [`Error::Schema`] naming the first member that does not fit.
    pub fn from_body(body: Value<'a>) -> Result<Self> {
        if body.kind() != Kind::Object {
            return Err(Error::Schema("offer body must be an object"));
        }
        if let Some(id) = body.get("offer_id") {
            if id.kind() != Kind::String {
                return Err(Error::Schema("offer_id must be a string"));
            }
        }
        let valid_until = match body.get("valid_until") {
            None => None,
            Some(v) => {
                // Decoded (escapes and all) into a stack buffer: an escaped spelling is the
                // same instant, as the reference SDK's json.loads reads it.
                let s = v.as_str().ok_or(Error::Schema("valid_until must be a date-time string"))?;
                let mut buf = [0u8; 64];
                let text = match s.as_plain() {
                    Some(t) => t,
                    None => s.decode_into(&mut buf).map_err(|_| Error::Schema("valid_until must be a date-time"))?,
                };
                Some(time::parse_datetime(text).map_err(|_| Error::Schema("valid_until must be a date-time"))?)
            }
        };
        let complete = match body.get("complete") {
            None => None,
            Some(c) => Some(c.as_bool().ok_or(Error::Schema("complete must be a boolean"))?),
        };
        let has = |k: &str| body.get(k).is_some();
        let kind = match (has("terms"), has("conditions"), has("bundles")) {
            (true, false, false) if has("open_terms") => OfferKind::Partial,
            (true, false, false) => OfferKind::Basic,
            (false, true, false) => OfferKind::Conditional,
            (false, false, true) => OfferKind::Bundle,
            (false, false, false) => return Err(Error::Schema("offer needs terms, conditions or bundles")),
            _ => return Err(Error::Schema("offer mixes terms, conditions and bundles")),
        };
        match kind {
            OfferKind::Basic => {
                check_terms(body.get("terms"))?;
                if complete == Some(false) {
                    return Err(Error::Schema("a basic offer is complete"));
                }
            }
            OfferKind::Partial => {
                check_terms(body.get("terms"))?;
                let open = body.get("open_terms").filter(|o| o.kind() == Kind::Array);
                let open = open.ok_or(Error::Schema("open_terms must be an array"))?;
                if !open.elements().all(|t| t.kind() == Kind::String) {
                    return Err(Error::Schema("open_terms must hold strings"));
                }
                if complete == Some(true) {
                    return Err(Error::Schema("a partial offer is not complete"));
                }
            }
            OfferKind::Conditional => {
                let c = body.get("conditions").filter(|c| c.kind() == Kind::Array && !c.is_empty());
                let c = c.ok_or(Error::Schema("conditions must be a non-empty array"))?;
                for clause in c.elements() {
                    let obj = |k| clause.get(k).filter(|v: &Value<'_>| v.kind() == Kind::Object);
                    if clause.kind() != Kind::Object || obj("if").is_none() || obj("then").is_none() {
                        return Err(Error::Schema("each condition needs an `if` and a `then` object"));
                    }
                }
            }
            OfferKind::Bundle => {
                let b = body.get("bundles").filter(|b| b.kind() == Kind::Array && !b.is_empty());
                let b = b.ok_or(Error::Schema("bundles must be a non-empty array"))?;
                for bundle in b.elements() {
                    if bundle.kind() != Kind::Object || bundle.get("bundle_id").is_none_or(|i| i.kind() != Kind::String)
                    {
                        return Err(Error::Schema("each bundle needs a string bundle_id"));
                    }
                    if bundle.get("label").is_some_and(|l| l.kind() != Kind::String) {
                        return Err(Error::Schema("bundle label must be a string"));
                    }
                    check_terms(bundle.get("terms"))?;
                }
                if body.get("select").is_some_and(|s| s.kind() != Kind::String) {
                    return Err(Error::Schema("select must be a string"));
                }
            }
        }
        Ok(Offer { body, kind, valid_until })
    }

    /// Which of the four kinds.
    #[must_use]
    pub fn kind(&self) -> OfferKind {
        self.kind
    }

    /// The `offer_id`, if present.
    #[must_use]
    pub fn id(&self) -> Option<Str<'a>> {
        self.body.get("offer_id").and_then(|v| v.as_str())
    }

    /// The `valid_until` instant, if present.
    #[must_use]
    pub fn valid_until(&self) -> Option<Timestamp> {
        self.valid_until
    }

    /// The `terms` object of a basic or partial offer.
    #[must_use]
    pub fn terms(&self) -> Option<Value<'a>> {
        self.body.get("terms")
    }

    /// A term's numeric `value` (basic and partial offers).
    #[must_use]
    pub fn numeric_term(&self, term: &str) -> Option<f64> {
        self.terms()?.get(term)?.get("value")?.as_f64()
    }

    /// The conditional clauses as `(if, then)` pairs.
    pub fn conditions(&self) -> impl Iterator<Item = (Value<'a>, Value<'a>)> + 'a {
        let clauses: Option<Elements<'a>> = self.body.get("conditions").map(|c| c.elements());
        clauses.into_iter().flatten().filter_map(|c| Some((c.get("if")?, c.get("then")?)))
    }

    /// The bundles of a bundle offer.
    pub fn bundles(&self) -> impl Iterator<Item = Value<'a>> + 'a {
        self.body.get("bundles").map(|b| b.elements()).into_iter().flatten()
    }

    /// The body as given.
    #[must_use]
    pub fn body(&self) -> Value<'a> {
        self.body
    }
}

fn check_terms(terms: Option<Value<'_>>) -> Result<()> {
    let t = terms.filter(|t| t.kind() == Kind::Object).ok_or(Error::Schema("terms must be an object"))?;
    if t.members().all(|(_, v)| v.kind() == Kind::Object) {
        Ok(())
    } else {
        Err(Error::Schema("each term must be an object"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, Node};

    fn kind(text: &str) -> Result<OfferKind> {
        let mut nodes = [Node::EMPTY; 64];
        let doc = parse(text.as_bytes(), &mut nodes).unwrap();
        Offer::from_body(doc.root()).map(|o| o.kind())
    }

    #[test]
    fn the_four_kinds_of_spec_section_6() {
        assert_eq!(
            kind(r#"{"offer_id":"o","terms":{"price":{"value":150.0,"currency":"USD"}},"complete":true}"#),
            Ok(OfferKind::Basic)
        );
        assert_eq!(
            kind(r#"{"terms":{"price":{"value":140}},"open_terms":["delivery_method"],"complete":false}"#),
            Ok(OfferKind::Partial)
        );
        assert_eq!(
            kind(r#"{"conditions":[{"if":{"d":"pickup"},"then":{"price":{"value":130}}}],"complete":true}"#),
            Ok(OfferKind::Conditional)
        );
        assert_eq!(
            kind(r#"{"bundles":[{"bundle_id":"b1","label":"x","terms":{"item":{"value":"R5"}}}],"select":"one_of"}"#),
            Ok(OfferKind::Bundle)
        );
    }

    #[test]
    fn malformed_offers_are_schema_errors() {
        for bad in [
            r#"[]"#,
            r#"{}"#,
            r#"{"terms":[]}"#,
            r#"{"terms":{"price":150}}"#,
            r#"{"terms":{},"conditions":[]}"#,
            r#"{"terms":{},"open_terms":[1]}"#,
            r#"{"terms":{},"open_terms":["a"],"complete":true}"#,
            r#"{"terms":{},"complete":false}"#,
            r#"{"conditions":[]}"#,
            r#"{"conditions":[{"if":{}}]}"#,
            r#"{"bundles":[{"label":"x","terms":{}}]}"#,
            r#"{"offer_id":7,"terms":{}}"#,
            r#"{"terms":{},"valid_until":"2026-03-21"}"#,
            r#"{"terms":{},"complete":"yes"}"#,
        ] {
            assert!(matches!(kind(bad), Err(Error::Schema(_))), "{bad}");
        }
    }

    #[test]
    fn accessors() {
        let mut nodes = [Node::EMPTY; 64];
        let doc = parse(br#"{"offer_id":"off_9","terms":{"price":{"value":2050,"currency":"USD"}},"valid_until":"2026-03-21T15:30:00Z"}"#, &mut nodes).unwrap();
        let o = Offer::from_body(doc.root()).unwrap();
        assert!(o.id().unwrap().eq_str("off_9"));
        assert_eq!(o.numeric_term("price"), Some(2050.0));
        assert_eq!(o.valid_until(), Some(time::parse_datetime("2026-03-21T15:30:00+00:00").unwrap()));
    }

    /// Issue 32, class 1: an escaped `valid_until` is the same instant (decoded), not a
    /// schema error and never absent.
    #[test]
    fn an_escaped_valid_until_is_decoded() {
        let mut nodes = [Node::EMPTY; 64];
        let doc = parse(br#"{"terms":{},"valid_until":"2026\u002d03-21T15:30:00Z"}"#, &mut nodes).unwrap();
        let o = Offer::from_body(doc.root()).unwrap();
        assert_eq!(o.valid_until(), Some(time::parse_datetime("2026-03-21T15:30:00Z").unwrap()));
        let mut nodes = [Node::EMPTY; 64];
        let long = std::format!(r#"{{"terms":{{}},"valid_until":"\u0032{}"}}"#, "0".repeat(80));
        let doc = parse(long.as_bytes(), &mut nodes).unwrap();
        assert_eq!(Offer::from_body(doc.root()).map(|_| ()), Err(Error::Schema("valid_until must be a date-time")));
    }
}
